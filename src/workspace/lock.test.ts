import { spawnSync } from "node:child_process";
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CloserError } from "../errors.js";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import {
  acquireLock,
  branchLockKey,
  getLocksDir,
  issueLockKey,
  type LockHolder,
  listLocks,
  runLockKey,
  treeLockKey,
} from "./lock.js";

let repo: FixtureRepo;

beforeEach(async () => {
  repo = await makeFixtureRepo();
});
afterEach(async () => {
  await repo.cleanup();
});

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""]);
  if (child.pid === undefined) throw new Error("could not start a process");
  return child.pid;
}

async function writeHolder(key: string, holder: LockHolder): Promise<string> {
  const locksDir = await getLocksDir(repo.dir);
  await mkdir(locksDir, { recursive: true });
  const lockPath = path.join(locksDir, `${key}.lock`);
  await writeFile(lockPath, JSON.stringify(holder));
  return lockPath;
}

describe("acquireLock", () => {
  it("creates the lock file in the common git dir with the holder", async () => {
    const now = () => new Date("2030-01-02T03:04:05.000Z");
    const { lock, warnings } = await acquireLock({
      cwd: repo.dir,
      key: issueLockKey(12),
      runId: "run-a",
      now,
    });
    expect(warnings).toEqual([]);
    expect(lock.path).toBe(path.join(repo.dir, ".git", "closer", "locks", "issue-12.lock"));
    const stored = JSON.parse(await readFile(lock.path, "utf8"));
    expect(stored).toEqual({
      pid: process.pid,
      hostname: os.hostname(),
      startedAt: "2030-01-02T03:04:05.000Z",
      runId: "run-a",
    });
    await lock.release();
    await expect(access(lock.path)).rejects.toThrow();
    await lock.release();
  });

  it("refuses a second run on the same issue, naming the holder's pid and run id", async () => {
    const { lock } = await acquireLock({ cwd: repo.dir, key: issueLockKey(3), runId: "run-first" });
    const error = await acquireLock({
      cwd: repo.dir,
      key: issueLockKey(3),
      runId: "run-second",
    }).catch((caught) => caught);
    expect(error).toBeInstanceOf(CloserError);
    expect(error.code).toBe("lock_error");
    expect(error.message).toContain("run-first");
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(error.fields.fix).toContain(lock.path);
    // Another issue is independent.
    const other = await acquireLock({ cwd: repo.dir, key: issueLockKey(4), runId: "run-other" });
    await other.lock.release();
    await lock.release();
    const again = await acquireLock({ cwd: repo.dir, key: issueLockKey(3), runId: "run-third" });
    expect(again.lock.holder.runId).toBe("run-third");
    await again.lock.release();
  });

  it("recovers the lock of a process that is gone, with a warning", async () => {
    const pid = deadPid();
    await writeHolder("issue-5", {
      pid,
      hostname: os.hostname(),
      startedAt: "2020-01-01T00:00:00.000Z",
      runId: "run-crashed",
    });
    const { lock, warnings } = await acquireLock({
      cwd: repo.dir,
      key: "issue-5",
      runId: "run-new",
    });
    expect(lock.holder.runId).toBe("run-new");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("run-crashed");
    expect(warnings[0]).toContain(String(pid));
    expect(JSON.parse(await readFile(lock.path, "utf8")).runId).toBe("run-new");
    await lock.release();
  });

  it("treats a holder on another host as alive", async () => {
    await writeHolder("issue-6", {
      pid: deadPid(),
      hostname: "some-other-host.invalid",
      startedAt: "2020-01-01T00:00:00.000Z",
      runId: "run-remote",
    });
    const error = await acquireLock({ cwd: repo.dir, key: "issue-6", runId: "run-new" }).catch(
      (caught) => caught,
    );
    expect(error.code).toBe("lock_error");
    expect(error.message).toContain("some-other-host.invalid");
  });

  it("does not release a lock someone else took over", async () => {
    const { lock } = await acquireLock({ cwd: repo.dir, key: "issue-7", runId: "run-a" });
    await writeFile(
      lock.path,
      JSON.stringify({ pid: 1, hostname: os.hostname(), startedAt: "", runId: "run-b" }),
    );
    await lock.release();
    expect(JSON.parse(await readFile(lock.path, "utf8")).runId).toBe("run-b");
  });

  it("says a run is running, naming its pid and host, when its lock is held", async () => {
    const { lock } = await acquireLock({ cwd: repo.dir, key: runLockKey("run-x"), runId: "run-x" });
    const error = await acquireLock({
      cwd: repo.dir,
      key: runLockKey("run-x"),
      runId: "run-x",
    }).catch((caught) => caught);
    expect(error.code).toBe("lock_error");
    expect(error.message).toContain(
      `run run-x is running (pid ${process.pid} on host ${os.hostname()}`,
    );
    await lock.release();
  });

  it("says which working tree is in use, and by which run", async () => {
    const key = treeLockKey(repo.dir);
    expect(key).toMatch(/^tree-[0-9a-f]{16}$/);
    expect(treeLockKey(`${repo.dir}-other`)).not.toBe(key);
    const { lock } = await acquireLock({
      cwd: repo.dir,
      key,
      runId: "run-a",
      worktreePath: repo.dir,
    });
    const error = await acquireLock({ cwd: repo.dir, key, runId: "run-b" }).catch(
      (caught) => caught,
    );
    expect(error.message).toContain(`the working tree ${repo.dir} is in use by run run-a`);
    await lock.release();
  });

  it("keeps the locks of a folder outside git in <folder>/.closer/locks", async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), "closer-no-git-"));
    try {
      expect(await getLocksDir(outside)).toBe(path.join(outside, ".closer", "locks"));
      const { lock } = await acquireLock({ cwd: outside, key: runLockKey("r1"), runId: "r1" });
      expect(lock.path).toBe(path.join(outside, ".closer", "locks", "run-r1.lock"));
      await lock.release();
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("lists locks with their holders and stores worktree and branch", async () => {
    const { lock } = await acquireLock({
      cwd: repo.dir,
      key: branchLockKey("feature/x"),
      runId: "run-b",
      worktreePath: "/somewhere",
      branch: "feature/x",
    });
    const locks = await listLocks(repo.dir);
    expect(locks).toEqual([
      {
        key: "branch-feature-x",
        path: lock.path,
        holder: expect.objectContaining({
          runId: "run-b",
          branch: "feature/x",
          worktreePath: "/somewhere",
        }),
      },
    ]);
    await lock.release();
    expect(await listLocks(repo.dir)).toEqual([]);
  });
});
