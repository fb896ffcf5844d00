import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type GitHttpRemote, startGitHttpRemote } from "../../test/support/git-http-remote.js";
import { makeChildEnvironment } from "../process/child-environment.js";
import { type FixtureRepo, makeFixtureRepo } from "../testing/index.js";
import {
  finishWorktree,
  prepareWorktree,
  readHooksPlace,
  resolveRevision,
} from "../workspace/index.js";
import { type GitHookEvent, makeGitHooks } from "./git-hooks.js";

const PUSH_TOKEN = "ghp_pushTokenOnlyForTheHelper0123";
const MODEL_KEY = "sk-ant-modelKeyNeverInAHook0123";
const ENV_TOKEN = "ghp_closersOwnEnvironmentToken0123";

/** A hook that dumps its arguments, stdin and environment (its own and /proc's) into `dumps`. */
function dumpingHook(dumps: string, name: string, exitCode = 0): string {
  return [
    "#!/bin/sh",
    `out='${dumps}/${name}'`,
    'echo "args: $*" > "$out.args"',
    'pwd > "$out.cwd"',
    'cat > "$out.stdin"',
    'env > "$out.env"',
    `tr '\\0' '\\n' < /proc/$$/environ > "$out.environ"`,
    `echo 'the ${name} hook says no' >&2`,
    `exit ${exitCode}`,
    "",
  ].join("\n");
}

describe("the user's hooks around closer's merge and push (docs/worktrees-and-github.md#git-hooks)", () => {
  let repo: FixtureRepo;
  let remote: GitHttpRemote;
  let dumps: string;
  let events: GitHookEvent[];

  beforeEach(async () => {
    repo = await makeFixtureRepo({ files: { "README.md": "# r\n" } });
    remote = await startGitHttpRemote(PUSH_TOKEN);
    dumps = await mkdtemp(path.join(tmpdir(), "closer-hook-dumps-"));
    events = [];
    await repo.git("remote", "add", "origin", remote.url);
  });
  afterEach(async () => {
    await remote.close();
    await repo.cleanup();
    await rm(dumps, { recursive: true, force: true });
  });

  async function installHook(name: string, exitCode = 0): Promise<void> {
    const file = path.join(repo.dir, ".git", "hooks", name);
    await writeFile(file, dumpingHook(dumps, name, exitCode));
    await chmod(file, 0o755);
  }

  async function dumped(name: string, part: string): Promise<string | undefined> {
    return readFile(path.join(dumps, `${name}.${part}`), "utf8").catch(() => undefined);
  }

  /** A worktree with one commit on `feature`, and closer's hooks runner for it. */
  async function prepare(mode: "sandboxed" | "skip") {
    const worktree = await prepareWorktree({ repoRoot: repo.dir, branch: "feature" });
    await writeFile(path.join(worktree.path, "work.txt"), "work\n");
    await repo.git("-C", worktree.path, "add", "work.txt");
    await repo.git("-C", worktree.path, "commit", "--quiet", "--no-verify", "-m", "work");
    const commit = await resolveRevision(worktree.path, "HEAD");
    const closerEnv = { ...process.env, GITHUB_TOKEN: ENV_TOKEN, ANTHROPIC_API_KEY: MODEL_KEY };
    const hooks = makeGitHooks({
      mode,
      place: await readHooksPlace(repo.dir),
      env: makeChildEnvironment("validators", closerEnv),
      timeoutMs: 30_000,
      record: async (event) => {
        events.push(event);
      },
    });
    return { worktree, commit, hooks };
  }

  /** Finishes the prepared worktree as a verified run would: push (with the token) or merge. */
  function finish(onSuccess: "push" | "merge", prepared: Awaited<ReturnType<typeof prepare>>) {
    return finishWorktree({
      repoRoot: repo.dir,
      outcome: "success",
      onSuccess,
      ...(onSuccess === "push" ? { pushToken: PUSH_TOKEN } : {}),
      ...prepared,
    });
  }

  it("runs pre-push as git would, without any credential, and the token reaches the server through the helper alone", async () => {
    await installHook("pre-push");
    const prepared = await prepare("sandboxed");
    const { commit } = prepared;
    const end = await finish("push", prepared);
    expect(end).toMatchObject({ action: "pushed", branch: "feature" });
    expect(remote.passwords).toContain(PUSH_TOKEN);
    const onRemote = await repo.git("--git-dir", remote.dir, "rev-parse", "refs/heads/feature");
    expect(onRemote.stdout.trim()).toBe(commit);
    expect(await dumped("pre-push", "args")).toBe(`args: origin ${remote.url}\n`);
    expect(await dumped("pre-push", "stdin")).toBe(
      `${commit} ${commit} refs/heads/feature ${"0".repeat(40)}\n`,
    );
    for (const part of ["env", "environ"]) {
      const text = (await dumped("pre-push", part)) ?? "";
      expect(text).toContain("PATH=");
      for (const secret of [PUSH_TOKEN, MODEL_KEY, ENV_TOKEN]) expect(text).not.toContain(secret);
      expect(text).not.toMatch(/^(GITHUB_TOKEN|GH_TOKEN|ANTHROPIC_API_KEY|CLOSER_PUSH_TOKEN)=/m);
    }
    expect(events).toEqual([
      {
        type: "git-hook",
        hook: "pre-push",
        operation: "push",
        ran: true,
        sandboxed: false,
        exitCode: 0,
      },
    ]);
  });

  it("a failing pre-push refuses the push: nothing reaches the remote, the worktree is kept", async () => {
    await installHook("pre-push", 1);
    const prepared = await prepare("sandboxed");
    const end = await finish("push", prepared);
    expect(end).toMatchObject({ action: "kept" });
    expect(end.action === "kept" && end.reason).toContain("pre-push hook refused the push");
    expect(remote.passwords).toEqual([]);
    expect(events[0]).toMatchObject({ hook: "pre-push", ran: true, exitCode: 1 });
    expect(events[0]?.detail).toContain("the pre-push hook says no");
  });

  it("runs post-merge with 0 in the checkout the merge moved, without credentials", async () => {
    await installHook("post-merge");
    const prepared = await prepare("sandboxed");
    const end = await finish("merge", prepared);
    expect(end).toMatchObject({ action: "merged", merge: "fast-forward" });
    expect(await dumped("post-merge", "args")).toBe("args: 0\n");
    const environ = (await dumped("post-merge", "environ")) ?? "";
    expect(await dumped("post-merge", "cwd")).toBe(`${repo.dir}\n`);
    expect(environ).not.toContain(MODEL_KEY);
    expect(environ).not.toContain(ENV_TOKEN);
    expect(events).toEqual([
      {
        type: "git-hook",
        hook: "post-merge",
        operation: "merge",
        ran: true,
        sandboxed: false,
        exitCode: 0,
      },
    ]);
  });

  it('with runner.git.hooks "skip" runs none, and says so for each', async () => {
    await installHook("pre-push", 1);
    const prepared = await prepare("skip");
    const end = await finish("push", prepared);
    expect(end).toMatchObject({ action: "pushed" });
    expect(await dumped("pre-push", "args")).toBeUndefined();
    expect(events).toEqual([
      { type: "git-hook", hook: "pre-push", operation: "push", ran: false, sandboxed: false },
    ]);
  });

  it("a hook that is not executable is no hook, as in git: nothing runs, nothing is said", async () => {
    await installHook("pre-push");
    await chmod(path.join(repo.dir, ".git", "hooks", "pre-push"), 0o644);
    const prepared = await prepare("sandboxed");
    await finish("push", prepared);
    expect(await dumped("pre-push", "args")).toBeUndefined();
    expect(events).toEqual([]);
  });
});
