import { spawnSync } from "node:child_process";
import { access, mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { branchExists, commitAll, runGit } from "./git.js";
import { listWorktrees, pruneWorktrees } from "./list-worktrees.js";
import { acquireLock, getLocksDir, issueLockKey } from "./lock.js";
import { prepareWorktree } from "./prepare-worktree.js";

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

describe("listWorktrees", () => {
  it("lists closer's worktrees with branch, issue, cleanliness, lock and run status", async () => {
    const locked = await prepareWorktree({ repoRoot: repo.dir, issue: 1 });
    const dirty = await prepareWorktree({ repoRoot: repo.dir, issue: 2 });
    await writeFile(path.join(dirty.path, "loose.txt"), "x");
    const custom = await prepareWorktree({ repoRoot: repo.dir, branch: "feature/custom" });
    // A worktree of the user's own, outside closer's root and branches, is not listed.
    await runGit(repo.dir, [
      "worktree",
      "add",
      "--quiet",
      "-b",
      "mine",
      path.join(repo.dir, "..", `${path.basename(repo.dir)}-mine`),
    ]);
    const { lock } = await acquireLock({
      cwd: repo.dir,
      key: issueLockKey(1),
      runId: "run-live",
      worktreePath: locked.path,
    });
    try {
      const listed = await listWorktrees(repo.dir, {
        readRunStatus: async (worktreePath) =>
          worktreePath === dirty.path ? "max_iterations" : undefined,
      });
      expect(listed.map((entry) => entry.branch).sort()).toEqual(
        ["closer/issue-1", "closer/issue-2", "feature/custom"].sort(),
      );
      const byBranch = new Map(listed.map((entry) => [entry.branch, entry]));
      expect(byBranch.get("closer/issue-1")).toMatchObject({
        path: locked.path,
        issue: 1,
        exists: true,
        clean: true,
        lock: { alive: true, holder: { runId: "run-live", pid: process.pid } },
      });
      expect(byBranch.get("closer/issue-2")).toMatchObject({
        issue: 2,
        clean: false,
        runStatus: "max_iterations",
      });
      expect(byBranch.get("feature/custom")).toMatchObject({ path: custom.path, clean: true });
      expect(byBranch.get("feature/custom")?.issue).toBeUndefined();
    } finally {
      await lock.release();
      await rm(path.join(repo.dir, "..", `${path.basename(repo.dir)}-mine`), {
        recursive: true,
        force: true,
      });
    }
  });
});

describe("pruneWorktrees", () => {
  it("never removes a dirty worktree without force, nor one a live run holds", async () => {
    const dirty = await prepareWorktree({ repoRoot: repo.dir, issue: 1 });
    await writeFile(path.join(dirty.path, "precious.txt"), "unsaved work");
    const held = await prepareWorktree({ repoRoot: repo.dir, issue: 2 });
    const { lock } = await acquireLock({ cwd: repo.dir, key: issueLockKey(2), runId: "run-live" });
    try {
      const result = await pruneWorktrees({ repoRoot: repo.dir });
      expect(result.removed).toEqual([]);
      const reasons = new Map(result.kept.map((entry) => [entry.path, entry.reason]));
      expect(reasons.get(dirty.path)).toMatch(/uncommitted/);
      expect(reasons.get(held.path)).toMatch(/run-live/);
      expect(await exists(path.join(dirty.path, "precious.txt"))).toBe(true);

      const forced = await pruneWorktrees({ repoRoot: repo.dir, force: true });
      expect(forced.removed.map((entry) => entry.path)).toEqual([dirty.path]);
      expect(forced.kept.map((entry) => entry.path)).toEqual([held.path]);
      expect(await exists(dirty.path)).toBe(false);
      expect(await exists(held.path)).toBe(true);
    } finally {
      await lock.release();
    }
  });

  it("removes orphans: folder gone, merged branch, no live lock; keeps unmerged branches", async () => {
    const gone = await prepareWorktree({ repoRoot: repo.dir, issue: 1 });
    await rm(gone.path, { recursive: true, force: true });
    const merged = await prepareWorktree({ repoRoot: repo.dir, issue: 2 });
    const unmerged = await prepareWorktree({ repoRoot: repo.dir, issue: 3 });
    await commitFile(unmerged.path, "work.txt", "committed work\n");
    const stale = await prepareWorktree({ repoRoot: repo.dir, issue: 4 });
    const locksDir = await getLocksDir(repo.dir);
    await mkdir(locksDir, { recursive: true });
    const staleLock = path.join(locksDir, "issue-4.lock");
    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
    await writeFile(
      staleLock,
      JSON.stringify({ pid: deadPid, hostname: os.hostname(), startedAt: "", runId: "run-dead" }),
    );

    const result = await pruneWorktrees({ repoRoot: repo.dir });
    expect(result.kept).toEqual([]);
    const removed = new Map(result.removed.map((entry) => [entry.branch, entry]));
    expect(removed.get("closer/issue-1")?.reason).toMatch(/folder is gone/);
    expect(removed.get("closer/issue-2")).toMatchObject({ branchDeleted: true });
    expect(removed.get("closer/issue-3")?.reason).toMatch(/branch kept \(1 unmerged/);
    expect(removed.get("closer/issue-4")).toBeDefined();
    expect(await exists(merged.path)).toBe(false);
    expect(await exists(stale.path)).toBe(false);
    expect(await exists(staleLock)).toBe(false);
    expect(await branchExists(repo.dir, "closer/issue-2")).toBe(false);
    // The committed work survives on its branch.
    expect(await branchExists(repo.dir, "closer/issue-3")).toBe(true);
    expect(await listWorktrees(repo.dir)).toEqual([]);
  });
});
