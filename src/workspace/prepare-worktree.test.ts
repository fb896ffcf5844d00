import { access, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CloserError } from "../errors.js";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { finishWorktree } from "./finish-worktree.js";
import { branchExists, commitAll, getGitCommonDir, isClean, readGit, runGit } from "./git.js";
import { listGitWorktrees } from "./git-worktree.js";
import { type PreparedWorktree, prepareWorktree } from "./prepare-worktree.js";

let repo: FixtureRepo;

beforeEach(async () => {
  repo = await makeFixtureRepo();
});
afterEach(async () => {
  await repo.cleanup();
});

async function exists(target: string): Promise<boolean> {
  return access(target).then(
    () => true,
    () => false,
  );
}

async function commitFile(cwd: string, file: string, text: string): Promise<void> {
  await writeFile(path.join(cwd, file), text);
  await commitAll(cwd, `change ${file}`);
}

const head = (cwd: string, revision = "HEAD") => readGit(cwd, ["rev-parse", revision]);

describe("prepareWorktree", () => {
  it("creates closer/issue-N off the current branch under .closer/worktrees", async () => {
    const worktree = await prepareWorktree({ repoRoot: repo.dir, issue: 7 });
    expect(worktree).toMatchObject({ branch: "closer/issue-7", baseBranch: "main", created: true });
    expect(path.relative(repo.dir, worktree.path)).toBe(
      path.join(".closer", "worktrees", "closer-issue-7"),
    );
    expect(await readGit(worktree.path, ["rev-parse", "--abbrev-ref", "HEAD"])).toBe(
      "closer/issue-7",
    );
    expect(await head(worktree.path)).toBe(await head(repo.dir));
    // closer's own folder never makes the main tree dirty.
    expect(await isClean(repo.dir)).toBe(true);
    const exclude = await readFile(path.join(repo.dir, ".git", "info", "exclude"), "utf8");
    expect(exclude.split("\n")).toContain(".closer/");
  });

  it("reuses the worktree of an existing run", async () => {
    const first = await prepareWorktree({ repoRoot: repo.dir, issue: 7 });
    await commitFile(first.path, "work.txt", "work\n");
    const second = await prepareWorktree({ repoRoot: repo.dir, issue: 7 });
    expect(second).toEqual({ ...first, created: false });
    expect(await exists(path.join(second.path, "work.txt"))).toBe(true);
  });

  it("honours --branch, --base-branch and a custom root, excluding that root", async () => {
    await repo.git("branch", "develop");
    await repo.git("switch", "--quiet", "-c", "other");
    await commitFile(repo.dir, "other.txt", "x");
    const worktree = await prepareWorktree({
      repoRoot: repo.dir,
      issue: 3,
      branch: "feature/login",
      baseBranch: "develop",
      root: "tmp/trees",
    });
    expect(worktree).toMatchObject({ branch: "feature/login", baseBranch: "develop" });
    expect(worktree.path).toBe(path.join(repo.dir, "tmp", "trees", "feature-login"));
    expect(await head(worktree.path)).toBe(await head(repo.dir, "develop"));
    expect(await isClean(repo.dir)).toBe(true);
  });

  it("defaults the base to the current branch and uses the branch template", async () => {
    await repo.git("switch", "--quiet", "-c", "release");
    const worktree = await prepareWorktree({
      repoRoot: repo.dir,
      issue: 12,
      branchTemplate: "fix/{issue}-auto",
    });
    expect(worktree).toMatchObject({ branch: "fix/12-auto", baseBranch: "release" });
  });

  it("reuses an existing branch that has no worktree", async () => {
    await repo.git("branch", "closer/issue-5");
    await repo.git("switch", "--quiet", "-c", "tmp");
    await commitFile(repo.dir, "later.txt", "x");
    const worktree = await prepareWorktree({ repoRoot: repo.dir, issue: 5, baseBranch: "tmp" });
    expect(worktree.created).toBe(true);
    expect(await head(worktree.path)).toBe(await head(repo.dir, "main"));
  });

  it("recreates a worktree whose folder was deleted", async () => {
    const first = await prepareWorktree({ repoRoot: repo.dir, issue: 8 });
    await rm(first.path, { recursive: true, force: true });
    const second = await prepareWorktree({ repoRoot: repo.dir, issue: 8 });
    expect(second.created).toBe(true);
    expect(await exists(path.join(second.path, "README.md"))).toBe(true);
  });

  it("refuses bad input with a fix", async () => {
    const noTask = await prepareWorktree({ repoRoot: repo.dir }).catch((error) => error);
    expect(noTask).toBeInstanceOf(CloserError);
    expect(noTask.code).toBe("usage_error");
    const badBase = await prepareWorktree({
      repoRoot: repo.dir,
      issue: 1,
      baseBranch: "nope",
    }).catch((error) => error);
    expect(badBase.code).toBe("workspace_error");
    expect(badBase.message).toContain("nope");
    const badName = await prepareWorktree({ repoRoot: repo.dir, branch: "a..b" }).catch((e) => e);
    expect(badName.code).toBe("usage_error");
    await repo.git("checkout", "--quiet", "--detach");
    const detached = await prepareWorktree({ repoRoot: repo.dir, issue: 1 }).catch((e) => e);
    expect(detached.fields.fix).toContain("--base-branch");
  });
});

describe("finishWorktree", () => {
  let worktree: PreparedWorktree;
  beforeEach(async () => {
    worktree = await prepareWorktree({ repoRoot: repo.dir, issue: 9 });
    await commitFile(worktree.path, "feature.txt", "done\n");
  });

  const finish = (options: Partial<Parameters<typeof finishWorktree>[0]> = {}) =>
    finishWorktree({
      repoRoot: repo.dir,
      worktree,
      outcome: "success",
      onSuccess: "merge",
      ...options,
    });

  it("fast-forwards the base checked out in the main worktree, then removes worktree and branch", async () => {
    const branchHead = await head(worktree.path);
    const result = await finish();
    expect(result).toEqual({
      action: "merged",
      merge: "fast-forward",
      baseBranch: "main",
      branchDeleted: true,
    });
    expect(await head(repo.dir)).toBe(branchHead);
    expect(await exists(path.join(repo.dir, "feature.txt"))).toBe(true);
    expect(await exists(worktree.path)).toBe(false);
    expect(await branchExists(repo.dir, worktree.branch)).toBe(false);
    expect(await listGitWorktrees(repo.dir)).toHaveLength(1);
  });

  it("makes a merge commit when the base moved on", async () => {
    await commitFile(repo.dir, "main-only.txt", "m\n");
    const result = await finish();
    expect(result).toMatchObject({ action: "merged", merge: "merge-commit" });
    const parents = (await readGit(repo.dir, ["log", "-1", "--format=%P"])).split(" ");
    expect(parents).toHaveLength(2);
    expect(await exists(path.join(repo.dir, "feature.txt"))).toBe(true);
    expect(await exists(path.join(repo.dir, "main-only.txt"))).toBe(true);
  });

  it("merges into a base no worktree has checked out, fast-forward and not", async () => {
    await repo.git("switch", "--quiet", "-c", "elsewhere");
    const branchHead = await head(worktree.path);
    expect(await finish()).toMatchObject({ action: "merged", merge: "fast-forward" });
    expect(await head(repo.dir, "main")).toBe(branchHead);

    const second = await prepareWorktree({ repoRoot: repo.dir, issue: 10, baseBranch: "main" });
    await commitFile(second.path, "second.txt", "2\n");
    await runGit(repo.dir, ["switch", "--quiet", "main"]);
    await commitFile(repo.dir, "moved.txt", "m\n");
    await runGit(repo.dir, ["switch", "--quiet", "elsewhere"]);
    const result = await finishWorktree({
      repoRoot: repo.dir,
      worktree: second,
      outcome: "success",
      onSuccess: "merge",
    });
    expect(result).toMatchObject({ action: "merged", merge: "merge-commit", branchDeleted: true });
    const message = await readGit(repo.dir, ["log", "-1", "--format=%s", "main"]);
    expect(message).toBe("Merge branch 'closer/issue-10' into main");
    const files = await readGit(repo.dir, ["ls-tree", "--name-only", "main"]);
    expect(files.split("\n")).toEqual(expect.arrayContaining(["second.txt", "moved.txt"]));
    expect(await isClean(repo.dir)).toBe(true);
  });

  it("keeps the worktree on failure and reports its path", async () => {
    const result = await finish({ outcome: "failure" });
    expect(result).toMatchObject({ action: "kept", path: worktree.path, branch: worktree.branch });
    expect(await exists(path.join(worktree.path, "feature.txt"))).toBe(true);
  });

  it("keeps it when onSuccess is keep or when work is uncommitted", async () => {
    expect((await finish({ onSuccess: "keep" })).action).toBe("kept");
    await writeFile(path.join(worktree.path, "loose.txt"), "x");
    const result = await finish();
    expect(result).toMatchObject({ action: "kept" });
    expect(result.action === "kept" && result.reason).toMatch(/uncommitted/);
  });

  it("keeps it on a merge conflict and leaves the base untouched", async () => {
    await commitFile(worktree.path, "README.md", "branch side\n");
    await commitFile(repo.dir, "README.md", "main side\n");
    const mainHead = await head(repo.dir);
    const result = await finish();
    expect(result).toMatchObject({ action: "kept", path: worktree.path });
    expect(result.action === "kept" && result.reason).toMatch(/conflict/);
    expect(await head(repo.dir)).toBe(mainHead);
    expect(await isClean(repo.dir)).toBe(true);
    expect(await isClean(worktree.path)).toBe(true);
  });

  it("keeps it when local changes in the main worktree are in the way", async () => {
    await commitFile(worktree.path, "README.md", "branch side\n");
    await writeFile(path.join(repo.dir, "README.md"), "uncommitted edit\n");
    const result = await finish();
    expect(result).toMatchObject({ action: "kept", path: worktree.path });
    expect(result.action === "kept" && result.error?.code).toBe("workspace_error");
    expect(await readFile(path.join(repo.dir, "README.md"), "utf8")).toBe("uncommitted edit\n");
  });

  it("pushes and opens a pull request through the callback", async () => {
    const remoteDir = await realpath(await mkdtemp(path.join(tmpdir(), "closer-remote-")));
    try {
      await runGit(remoteDir, ["init", "--quiet", "--bare"]);
      await repo.git("remote", "add", "origin", remoteDir);
      const opened: string[] = [];
      const result = await finish({
        onSuccess: "push",
        pullRequest: async (branch) => {
          opened.push(branch);
          return "https://github.example/acme/widgets/pull/1";
        },
      });
      expect(result).toEqual({
        action: "pushed",
        branch: "closer/issue-9",
        pullRequestUrl: "https://github.example/acme/widgets/pull/1",
      });
      expect(opened).toEqual(["closer/issue-9"]);
      expect(await head(remoteDir, "closer/issue-9")).toBe(await head(repo.dir, "closer/issue-9"));
      expect(await exists(worktree.path)).toBe(false);
    } finally {
      await rm(remoteDir, { recursive: true, force: true });
    }
  });

  it("keeps the worktree when the push fails", async () => {
    const result = await finish({ onSuccess: "push", remote: "missing" });
    expect(result).toMatchObject({ action: "kept" });
    expect(result.action === "kept" && result.error?.code).toBe("workspace_error");
  });

  it("shares one exclude file between the main tree and its worktrees", async () => {
    const commonDir = await getGitCommonDir(worktree.path);
    expect(commonDir).toBe(path.join(repo.dir, ".git"));
    await mkdir(path.join(worktree.path, ".closer", "runs"), { recursive: true });
    await writeFile(path.join(worktree.path, ".closer", "runs", "run.json"), "{}");
    expect(await isClean(worktree.path)).toBe(true);
  });
});
