import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type GitHttpRemote, startGitHttpRemote } from "../../test/support/git-http-remote.js";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { commitAll, mergeBranch, readHooksPlace, runGit } from "./git.js";
import { pushBranch } from "./git-push.js";
import { addWorktree } from "./git-worktree.js";

/** Every hook git knows, each leaving a file named after it in `marks` when git runs it. */
const HOOK_NAMES = [
  "pre-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "pre-merge-commit",
  "post-merge",
  "post-checkout",
  "pre-push",
  "reference-transaction",
  "post-rewrite",
  "post-index-change",
  "pre-auto-gc",
];

const TOKEN = "ghp_theOnePushToken0123456789";

let repo: FixtureRepo;
let marks: string;

beforeEach(async () => {
  repo = await makeFixtureRepo({ files: { "README.md": "# demo\n" } });
  marks = await realpath(await mkdtemp(path.join(tmpdir(), "closer-hook-marks-")));
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await repo.cleanup();
  await rm(marks, { recursive: true, force: true });
});

/** Puts every hook in `folder`; each dumps its environment into `marks/<hook>`. */
async function installHooks(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  for (const name of HOOK_NAMES) {
    const file = path.join(folder, name);
    await writeFile(file, `#!/bin/sh\nenv > '${marks}/${name}'\ncat > /dev/null\nexit 0\n`);
    await chmod(file, 0o755);
  }
}

async function hooksThatRan(): Promise<string[]> {
  return (await readdir(marks)).filter((name) => HOOK_NAMES.includes(name));
}

async function closerGitOperations(remote: string): Promise<void> {
  await writeFile(path.join(repo.dir, "a.txt"), "a\n");
  await commitAll(repo.dir, "a");
  const linked = path.join(marks, "linked");
  await addWorktree({
    repoRoot: repo.dir,
    worktreePath: linked,
    branch: "side",
    startPoint: "main",
  });
  await writeFile(path.join(linked, "b.txt"), "b\n");
  await commitAll(linked, "b");
  expect(await mergeBranch(repo.dir, "side")).toBe("fast-forward");
  await runGit(repo.dir, ["remote", "add", "origin", remote]);
  await pushBranch(repo.dir, "main", "origin");
}

describe("closer's git runs no hook of the repository's (docs/worktrees-and-github.md#git-hooks)", () => {
  it("not from <git dir>/hooks: commit, worktree add, merge and push run none", async () => {
    await installHooks(path.join(repo.dir, ".git", "hooks"));
    const bare = path.join(marks, "remote.git");
    await runGit(marks, ["init", "--quiet", "--bare", bare]);
    await closerGitOperations(bare);
    expect(await hooksThatRan()).toEqual([]);
  });

  it("not from core.hooksPath in the config, nor from GIT_CONFIG_PARAMETERS or GIT_CONFIG_COUNT", async () => {
    const configured = path.join(marks, "configured-hooks");
    const fromEnvironment = path.join(marks, "environment-hooks");
    await installHooks(configured);
    await installHooks(fromEnvironment);
    await runGit(repo.dir, ["config", "core.hooksPath", configured]);
    vi.stubEnv("GIT_CONFIG_PARAMETERS", `'core.hooksPath'='${fromEnvironment}'`);
    vi.stubEnv("GIT_CONFIG_COUNT", "1");
    vi.stubEnv("GIT_CONFIG_KEY_0", "core.hooksPath");
    vi.stubEnv("GIT_CONFIG_VALUE_0", fromEnvironment);
    const bare = path.join(marks, "remote.git");
    await runGit(marks, ["init", "--quiet", "--bare", bare]);
    await closerGitOperations(bare);
    expect(await hooksThatRan()).toEqual([]);
  });

  it("reads where the user's hooks are, as configured, despite its own pin", async () => {
    expect(await readHooksPlace(repo.dir)).toEqual({ path: path.join(repo.dir, ".git", "hooks") });
    await runGit(repo.dir, ["config", "core.hooksPath", ".husky"]);
    expect(await readHooksPlace(repo.dir)).toEqual({ path: ".husky" });
  });
});

describe("the push token's private channel (docs/worktrees-and-github.md#push-credential)", () => {
  let remote: GitHttpRemote;
  beforeEach(async () => {
    remote = await startGitHttpRemote(TOKEN);
  });
  afterEach(async () => {
    await remote.close();
  });

  it("reaches the server through git's credential protocol, in no environment of what git starts", async () => {
    // The user's own credential helper runs first, answers nothing, and shows what it was given.
    const helper = path.join(marks, "user-helper");
    await writeFile(
      helper,
      `#!/bin/sh\n{ echo "action: $1"; env; tr '\\0' '\\n' < /proc/$$/environ; } >> '${marks}/helper'\ncat > /dev/null\n`,
    );
    await chmod(helper, 0o755);
    await runGit(repo.dir, ["config", "credential.helper", helper]);
    await runGit(repo.dir, ["remote", "add", "origin", remote.url]);
    await pushBranch(repo.dir, "main", "origin", { token: TOKEN });
    expect(remote.passwords).toContain(TOKEN);
    const seen = await readFile(path.join(marks, "helper"), "utf8");
    expect(seen).toContain("action: get");
    const environments = seen.split("action: ").filter((part) => part.startsWith("get"));
    for (const environment of environments) {
      expect(environment).not.toContain(TOKEN);
      expect(environment).not.toContain("CLOSER_PUSH_TOKEN");
    }
    expect(await readFile(path.join(repo.dir, ".git", "config"), "utf8")).not.toContain(TOKEN);
    // The channel is gone after the push: no socket, no folder of closer's left.
    expect((await readdir(tmpdir())).filter((name) => name.startsWith("closer-push-"))).toEqual([]);
  });

  it("without the token the server refuses the push", async () => {
    await runGit(repo.dir, ["remote", "add", "origin", remote.url]);
    await expect(pushBranch(repo.dir, "main", "origin")).rejects.toThrow(/git push failed/);
  });
});
