import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { finishWorktree } from "./finish-worktree.js";
import { branchExists, commitAll, readGit, runGit } from "./git.js";
import { type PreparedWorktree, prepareWorktree } from "./prepare-worktree.js";
import { mergeCommit, readMoveSince } from "./verified-commit.js";

let repo: FixtureRepo;
let worktree: PreparedWorktree;
/** The commit the checks verified: the branch's tip when the test starts. */
let verified: string;

beforeEach(async () => {
  repo = await makeFixtureRepo();
  worktree = await prepareWorktree({ repoRoot: repo.dir, issue: 3 });
  await commitFile(worktree.path, "feature.txt", "done\n");
  verified = await head(worktree.path);
});
afterEach(async () => {
  await repo.cleanup();
});

async function commitFile(cwd: string, file: string, text: string): Promise<void> {
  await writeFile(path.join(cwd, file), text);
  await commitAll(cwd, `change ${file}`);
}

const head = (cwd: string, revision = "HEAD") => readGit(cwd, ["rev-parse", revision]);

const finish = (options: Partial<Parameters<typeof finishWorktree>[0]> = {}) =>
  finishWorktree({
    repoRoot: repo.dir,
    worktree,
    outcome: "success",
    onSuccess: "merge",
    commit: verified,
    ...options,
  });

describe("docs/integrity.md#one-commit: finishWorktree given the verified commit", () => {
  it("merges that commit into the base checked out elsewhere, and the branch goes", async () => {
    expect(await finish()).toMatchObject({ action: "merged", merge: "fast-forward" });
    expect(await head(repo.dir, "main")).toBe(verified);
    expect(await branchExists(repo.dir, worktree.branch)).toBe(false);
  });

  it("refuses when the branch moved after the verdict: the base is untouched, the worktree kept", async () => {
    const mainBefore = await head(repo.dir, "main");
    await commitFile(worktree.path, "late.txt", "unchecked\n");
    const late = await head(worktree.path);

    const result = await finish();

    expect(result).toMatchObject({
      action: "kept",
      moved: { ref: `refs/heads/${worktree.branch}`, now: late },
    });
    expect(result.action === "kept" && result.reason).toContain(
      `moved after the checks verified commit ${verified}`,
    );
    expect(await head(repo.dir, "main")).toBe(mainBefore);
    expect(await head(worktree.path)).toBe(late);
  });

  it("refuses when the worktree's HEAD left the verified commit, though the branch stayed", async () => {
    await runGit(worktree.path, ["checkout", "--quiet", "--detach"]);
    await commitFile(worktree.path, "late.txt", "unchecked\n");

    expect(await readMoveSince(worktree.path, worktree.branch, verified)).toEqual({
      ref: "HEAD",
      now: await head(worktree.path),
    });
    expect(await finish()).toMatchObject({ action: "kept", moved: { ref: "HEAD" } });
  });

  it("merges into a base no worktree has checked out by compare-and-swap, as the commit", async () => {
    await runGit(repo.dir, ["switch", "--quiet", "-c", "elsewhere"]);
    await runGit(repo.dir, ["switch", "--quiet", "main"]);
    await commitFile(repo.dir, "main-only.txt", "m\n");
    await runGit(repo.dir, ["switch", "--quiet", "elsewhere"]);

    const result = await finish();

    expect(result).toMatchObject({ action: "merged", merge: "merge-commit" });
    const parents = (await readGit(repo.dir, ["log", "-1", "--format=%P", "main"])).split(" ");
    expect(parents[1]).toBe(verified);
    expect(await readGit(repo.dir, ["log", "-1", "--format=%s", "main"])).toBe(
      `Merge branch '${worktree.branch}' into main`,
    );
  });

  it("pushes exactly the verified commit, and refuses a moved branch without pushing", async () => {
    const remoteDir = await realpath(await mkdtemp(path.join(tmpdir(), "closer-remote-")));
    try {
      await runGit(remoteDir, ["init", "--quiet", "--bare"]);
      await runGit(repo.dir, ["remote", "add", "origin", remoteDir]);
      await commitFile(worktree.path, "late.txt", "unchecked\n");
      expect(await finish({ onSuccess: "push" })).toMatchObject({ action: "kept" });
      expect(await branchExists(remoteDir, worktree.branch)).toBe(false);

      await runGit(worktree.path, ["reset", "--quiet", "--hard", verified]);
      expect(await finish({ onSuccess: "push" })).toMatchObject({ action: "pushed" });
      expect(await head(remoteDir, worktree.branch)).toBe(verified);
      expect(await readGit(repo.dir, ["rev-parse", "--abbrev-ref", `${worktree.branch}@{u}`])).toBe(
        `origin/${worktree.branch}`,
      );
    } finally {
      await rm(remoteDir, { recursive: true, force: true });
    }
  });
});

describe("mergeCommit", () => {
  it("merges a commit, not a branch name, into the branch checked out", async () => {
    await commitFile(worktree.path, "late.txt", "after the verdict\n");
    await commitFile(repo.dir, "main-only.txt", "m\n");

    expect(await mergeCommit(repo.dir, verified, "Merge the verified commit")).toBe("merge-commit");

    const files = await readGit(repo.dir, ["ls-tree", "--name-only", "main"]);
    expect(files.split("\n")).toContain("feature.txt");
    expect(files.split("\n")).not.toContain("late.txt");
    expect(await mergeCommit(repo.dir, verified, "again")).toBe("up-to-date");
  });
});
