import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SandboxConfig } from "../ports/runner-config.js";
import { readGitLayout } from "./git-layout.js";
import {
  baseUrlHosts,
  isLoopbackHost,
  placesToMake,
  type SandboxPlace,
  sandboxPolicyFor,
} from "./sandbox-policy.js";
import { sandboxedCommandLine } from "./sandboxed-launch.js";

const CONFIG: SandboxConfig = {
  mode: "auto",
  allowWrite: [],
  denyRead: [],
  allowedDomains: [],
  validatorDomains: [],
  ignoreRefusals: [],
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();
}

describe("the sandbox policy of a run", () => {
  let root: string;
  let repo: string;
  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), "closer-policy-")));
    repo = join(root, "repo");
    await mkdir(repo);
    git(repo, "init", "-q", "-b", "main");
    await writeFile(join(repo, "a.txt"), "a\n");
    git(repo, "add", "a.txt");
    git(repo, "commit", "-qm", "first");
    git(repo, "branch", "closer/other-run");
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  async function placeOf(tree: string, extra: Partial<SandboxPlace> = {}): Promise<SandboxPlace> {
    const git = await readGitLayout(tree);
    return {
      tree,
      ...(git === undefined ? {} : { git }),
      scratchDir: join(root, "scratch"),
      runsDir: join(repo, ".git/closer/runs"),
      agentDirs: [join(repo, ".agent/fixer")],
      home: join(root, "home"),
      backendKinds: ["claude-sdk"],
      backendEnv: {},
      config: CONFIG,
      passGithubToken: false,
      ...extra,
    };
  }

  it("in a worktree: the tree, the objects, its branch's ref folder and its own git folder are writable; git's files, the other branch beside it and the .git file are not", async () => {
    const tree = join(root, "wt");
    git(repo, "worktree", "add", "-q", "-b", "closer/issue-7", tree);
    const common = join(repo, ".git");
    const admin = join(common, "worktrees/wt");
    const { backend } = sandboxPolicyFor(await placeOf(tree));

    expect(backend.allowWrite).toEqual(
      expect.arrayContaining([
        tree,
        join(root, "scratch"),
        join(common, "objects"),
        join(common, "refs/heads/closer"),
        admin,
      ]),
    );
    expect(backend.allowWrite).not.toContain(common);
    expect(backend.denyWrite).toEqual(
      expect.arrayContaining([
        join(common, "config"),
        join(common, "hooks"),
        join(common, "HEAD"),
        join(common, "refs/heads/closer/other-run"),
        join(admin, "commondir"),
        join(admin, "gitdir"),
        join(admin, "HEAD"),
        join(admin, "config.worktree"),
        join(tree, ".git"),
      ]),
    );
    expect(backend.denyWrite).not.toContain(join(common, "refs/heads/closer/issue-7"));
  });

  it("in a batch: the branch another worktree has checked out is not held, since its run deletes it when it ends", async () => {
    const tree = join(root, "wt");
    git(repo, "worktree", "add", "-q", "-b", "closer/issue-7", tree);
    git(repo, "worktree", "add", "-q", "-b", "closer/issue-8", join(root, "wt8"));
    const common = join(repo, ".git");
    const { backend } = sandboxPolicyFor(await placeOf(tree));
    expect(backend.denyWrite).toContain(join(common, "refs/heads/closer/other-run"));
    expect(backend.denyWrite).not.toContain(join(common, "refs/heads/closer/issue-8"));
  });

  it("in a tree that holds its .git: every other ref beside and above the branch is read-only, and so is the record", async () => {
    git(repo, "tag", "v1");
    await mkdir(join(repo, ".git/closer/runs"), { recursive: true });
    const common = join(repo, ".git");
    const { backend, validators } = sandboxPolicyFor(await placeOf(repo));

    expect(backend.allowWrite).toEqual(expect.arrayContaining([repo, join(common, "refs/heads")]));
    expect(backend.denyWrite).toEqual(
      expect.arrayContaining([
        join(common, "refs/heads/closer"),
        join(common, "refs/tags"),
        join(common, "closer"),
        join(common, "closer/runs"),
      ]),
    );
    expect(backend.denyWrite).not.toContain(join(common, "refs/heads/main"));
    expect(validators.denyWrite).toEqual(backend.denyWrite);
  });

  it("in a tree that holds its .git, closer's git places are held whether they exist or not; closer makes the missing ones git reads as nothing, never a shallow or commondir", async () => {
    const common = join(repo, ".git");
    for (const name of ["hooks", "info", "modules", "refs/replace", "packed-refs"]) {
      await rm(join(common, name), { recursive: true, force: true });
    }
    const place = await placeOf(repo);
    const held = {
      folders: ["hooks", "info", "modules", "refs/replace"].map((name) => join(common, name)),
      files: ["config.worktree", "packed-refs", "gitdir", "objects/info/alternates"].map((name) =>
        join(common, name),
      ),
    };
    const { backend, validators } = sandboxPolicyFor(place);
    expect(backend.denyWrite).toEqual(expect.arrayContaining([...held.folders, ...held.files]));
    expect(validators.denyWrite).toEqual(backend.denyWrite);
    expect(backend.denyWrite).not.toContain(join(common, "shallow"));
    expect(backend.denyWrite).not.toContain(join(common, "commondir"));
    const made = placesToMake(place);
    expect(made).toEqual(
      expect.arrayContaining([
        ...held.folders.map((path) => ({ path, make: "folder" })),
        ...held.files.map((path) => ({ path, make: "file" })),
      ]),
    );
    expect(made.map(({ path }) => path)).not.toContain(join(common, "shallow"));

    await writeFile(join(common, "shallow"), `${git(repo, "rev-parse", "HEAD")}\n`);
    expect(sandboxPolicyFor(place).backend.denyWrite).toContain(join(common, "shallow"));
  });

  it("in a worktree, closer makes only the missing places the model could write outside what its tools see: the alternates, its config.worktree; the agent's missing copy in the tree is judged, not held", async () => {
    const tree = join(root, "wt");
    git(repo, "worktree", "add", "-q", "-b", "closer/issue-7", tree);
    const common = join(repo, ".git");
    await rm(join(common, "hooks"), { recursive: true, force: true });
    const place = await placeOf(tree, { agentDirs: [join(tree, ".agent/fixer")] });
    const policy = sandboxPolicyFor(place);
    expect(policy.backend.denyWrite).toContain(join(common, "hooks"));
    expect(policy.backend.denyWrite).not.toContain(join(tree, ".agent/fixer"));
    expect(policy.unheld).toEqual([join(tree, ".agent/fixer")]);
    expect(placesToMake(place)).toEqual([
      { path: join(common, "objects/info/alternates"), make: "file" },
      { path: join(common, "worktrees/wt/config.worktree"), make: "file" },
    ]);
    await mkdir(join(tree, ".agent/fixer"), { recursive: true });
    expect(sandboxPolicyFor(place).backend.denyWrite).toContain(join(tree, ".agent/fixer"));
    expect(sandboxPolicyFor(place).unheld).toEqual([]);
  });

  it("holds the tree's own shell, git and editor settings where they exist, a few folders down, and stands in for none", async () => {
    await mkdir(join(repo, ".vscode"));
    await writeFile(join(repo, ".mcp.json"), "{}");
    await mkdir(join(repo, "pkg/deep"), { recursive: true });
    await writeFile(join(repo, "pkg/.bashrc"), "");
    await writeFile(join(repo, "pkg/deep/.gitconfig"), "");
    await mkdir(join(repo, "pkg/deep/deeper"), { recursive: true });
    await writeFile(join(repo, "pkg/deep/deeper/.profile"), "");
    await mkdir(join(repo, "node_modules/x"), { recursive: true });
    await writeFile(join(repo, "node_modules/x/.bashrc"), "");
    await mkdir(join(repo, "vendor/lib/.git/hooks"), { recursive: true });
    await writeFile(join(repo, "vendor/lib/.git/config"), "");
    await mkdir(join(repo, "pkg/.claude/agents"), { recursive: true });
    const place = await placeOf(repo);
    const { denyWrite } = sandboxPolicyFor(place).backend;
    expect(denyWrite).toEqual(
      expect.arrayContaining([
        join(repo, ".vscode"),
        join(repo, ".mcp.json"),
        join(repo, "pkg/.bashrc"),
        join(repo, "pkg/deep/.gitconfig"),
        join(repo, "pkg/.claude/agents"),
      ]),
    );
    for (const absent of [".bashrc", ".idea", ".claude/commands", ".gitmodules"]) {
      expect(denyWrite).not.toContain(join(repo, absent));
    }
    expect(denyWrite).not.toContain(join(repo, "pkg/deep/deeper/.profile"));
    expect(denyWrite).not.toContain(join(repo, "node_modules/x/.bashrc"));
    expect(denyWrite).not.toContain(join(repo, "vendor/lib/.git/hooks"));
    expect(placesToMake(place).filter(({ path }) => !path.startsWith(join(repo, ".git/")))).toEqual(
      [],
    );
  });

  it("a URL without a port allows only its scheme's default port; the agent's own hosts stay as written", async () => {
    const place = await placeOf(repo, {
      backendEnv: {
        ANTHROPIC_BASE_URL: "http://models.internal/v1",
        OPENAI_BASE_URL: "https://gateway.example.com",
        LOCAL_API_BASE: "http://[::1]/",
        GRPC_BASE_URL: "grpc://models.internal",
        PORTED_BASE_URL: "https://gateway.example.com:8443/v1",
      },
      config: { ...CONFIG, allowedDomains: ["registry.npmjs.org", "*.example.org:8080"] },
    });
    const { hosts } = sandboxPolicyFor(place).backend;
    expect(hosts).toEqual(
      expect.arrayContaining([
        "models.internal:80",
        "gateway.example.com:443",
        "[::1]:80",
        "gateway.example.com:8443",
        "registry.npmjs.org",
        "*.example.org:8080",
      ]),
    );
    for (const portless of ["models.internal", "gateway.example.com", "[::1]"]) {
      expect(hosts).not.toContain(portless);
    }
    expect(baseUrlHosts({ GRPC_BASE_URL: "grpc://models.internal" })).toEqual([]);
  });

  it("the backend reaches its model API, the host of each *_BASE_URL and the agent's hosts; the validators only theirs", async () => {
    const place = await placeOf(repo, {
      backendEnv: { ANTHROPIC_BASE_URL: "http://127.0.0.1:8080/v1", OTHER: "x" },
      config: { ...CONFIG, allowedDomains: ["registry.npmjs.org"], validatorDomains: ["db:5432"] },
    });
    const { backend, validators } = sandboxPolicyFor(place);

    expect(backend.hosts).toEqual(expect.arrayContaining(["*.anthropic.com", "127.0.0.1:8080"]));
    expect(backend.hosts).toContain("registry.npmjs.org");
    expect(validators.hosts).toEqual(["db:5432"]);
    expect(baseUrlHosts({ OPENAI_API_BASE: "https://example.com/v1", NOT_A_URL: "x" })).toEqual([
      "example.com:443",
    ]);
    expect(["127.0.0.1:8080", "localhost", "[::1]:9"].every(isLoopbackHost)).toBe(true);
    expect(isLoopbackHost("example.com:127")).toBe(false);
  });

  it("the backend's own state is writable to it and unreadable to the checks; closer's GitHub tokens are withheld unless the backend is granted one", async () => {
    const state = join(root, "claude-config");
    await mkdir(state);
    const place = await placeOf(repo, { backendEnv: { CLAUDE_CONFIG_DIR: state } });
    const { backend, validators } = sandboxPolicyFor(place);
    expect(backend.allowWrite).toContain(state);
    expect(validators.allowWrite).not.toContain(state);
    expect(validators.denyRead).toContain(join(root, "home/.claude"));
    expect(backend.denyRead).toContain(join(root, "home/.ssh"));
    expect(backend.deniedVariables).toContain("GITHUB_TOKEN");
    expect(validators.deniedVariables).toContain("GH_TOKEN");

    const granted = sandboxPolicyFor({ ...place, passGithubToken: true });
    expect(granted.backend.deniedVariables).toEqual([]);
    expect(granted.validators.deniedVariables).toContain("GITHUB_TOKEN");
  });
});

describe("the shell line of a sandboxed launch", () => {
  it("quotes every word, sets TMPDIR (and zsh's TMPPREFIX), and clears NO_PROXY only when asked", () => {
    const launch = { file: "/bin/echo", args: ["it's", "$HOME", "a b"], env: {} };
    const line = sandboxedCommandLine(launch, { tmpDir: "/tmp/x y", clearNoProxy: false });
    expect(line).toBe(
      `exec env -u CLOSER_SANDBOXED_COMMAND 'TMPDIR=/tmp/x y' 'TMPPREFIX=/tmp/x y/zsh' '/bin/echo' 'it'\\''s' '$HOME' 'a b'`,
    );
    expect(
      execFileSync("sh", ["-c", line.replace("exec env", "exec env -i")], { encoding: "utf8" }),
    ).toBe("it's $HOME a b\n");
    expect(sandboxedCommandLine(launch, { tmpDir: "/t", clearNoProxy: true })).toContain(
      "-u NO_PROXY -u no_proxy",
    );
  });
});
