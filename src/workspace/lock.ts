/**
 * One lock per issue (or branch) so two runs never work on the same task, one
 * per run id so a run has one live process, one per working tree so two runs
 * never share one (docs/integrity.md#run-lock). The lock is a file under
 * `<git common dir>/closer/locks/` (outside git, `<cwd>/.closer/locks/`),
 * created atomically; a lock whose holder process is gone on this host is recovered.
 */
import { createHash, randomUUID } from "node:crypto";
import { link, mkdir, readdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CloserError } from "../errors.js";
import { type GitPlace, readGitPlace } from "./git-place.js";

/** What a lock file holds. */
export interface LockHolder {
  readonly pid: number;
  readonly hostname: string;
  /** ISO time the lock was taken. */
  readonly startedAt: string;
  readonly runId: string;
  readonly worktreePath?: string;
  readonly branch?: string;
}

/** A lock this process holds. */
export interface HeldLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** Remove the lock file if it is still ours; safe to call twice. */
  release(): Promise<void>;
}

export interface AcquireLockOptions {
  /** Any folder inside the repository. */
  readonly cwd: string;
  /** `issue-12` for an issue run (see issueLockKey / branchLockKey). */
  readonly key: string;
  readonly runId: string;
  readonly worktreePath?: string;
  readonly branch?: string;
  /** Where `cwd` is in git, when the caller read it already (default: read here). */
  readonly place?: GitPlace;
  /** Injected for tests; default: the current time. */
  readonly now?: () => Date;
}

export interface AcquiredLock {
  readonly lock: HeldLock;
  /** Set when a stale lock of a dead process was recovered. */
  readonly warnings: readonly string[];
}

/** Lock name of an issue run. */
export function issueLockKey(issue: number): string {
  return `issue-${issue}`;
}

/** Lock name of a run on a branch without an issue. */
export function branchLockKey(branch: string): string {
  return `branch-${branch.replace(/[^A-Za-z0-9._-]+/g, "-")}`;
}

/** Lock name of a run, new or resumed. */
export function runLockKey(runId: string): string {
  return `run-${runId.replace(/[^A-Za-z0-9._-]+/g, "-")}`;
}

/** Lock name of a working tree a run works in without a worktree of its own (its real path). */
export function treeLockKey(realPath: string): string {
  return `tree-${createHash("sha256").update(realPath).digest("hex").slice(0, 16)}`;
}

/** Folder of the lock files of the repository that holds `cwd`; outside git, `<cwd>/.closer/locks`. */
export async function getLocksDir(cwd: string): Promise<string> {
  return locksDirOf(cwd, await readGitPlace(cwd));
}

/** Folder of the lock files for `cwd`, whose place in git is known. */
export function locksDirOf(cwd: string, place: GitPlace): string {
  if (place.commonDir === undefined) return path.join(path.resolve(cwd), ".closer", "locks");
  return path.join(place.commonDir, "closer", "locks");
}

/** True when the process still exists; a holder on another host counts as alive. */
export function isHolderAlive(holder: LockHolder, hostname = os.hostname()): boolean {
  if (holder.hostname !== hostname) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** Read a lock file; undefined when it is missing or not a lock. */
async function readLockHolder(lockPath: string): Promise<LockHolder | undefined> {
  let text: string;
  try {
    text = await readFile(lockPath, "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid !== "number" || typeof parsed.runId !== "string") return undefined;
    return {
      pid: parsed.pid,
      hostname: String(parsed.hostname ?? ""),
      startedAt: String(parsed.startedAt ?? ""),
      runId: parsed.runId,
      ...(parsed.worktreePath ? { worktreePath: parsed.worktreePath } : {}),
      ...(parsed.branch ? { branch: parsed.branch } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Every lock file of the repository with its holder. */
export async function listLocks(
  cwd: string,
): Promise<{ key: string; path: string; holder: LockHolder }[]> {
  const locksDir = await getLocksDir(cwd);
  let names: string[];
  try {
    names = await readdir(locksDir);
  } catch {
    return [];
  }
  const locks: { key: string; path: string; holder: LockHolder }[] = [];
  for (const name of names.filter((entry) => entry.endsWith(".lock")).sort()) {
    const lockPath = path.join(locksDir, name);
    const holder = await readLockHolder(lockPath);
    if (holder) locks.push({ key: name.slice(0, -".lock".length), path: lockPath, holder });
  }
  return locks;
}

/** Create `lockPath` holding `holder`, failing with EEXIST like O_EXCL, never half-written. */
async function createLockFile(lockPath: string, holder: LockHolder): Promise<boolean> {
  const temporary = `${lockPath}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(temporary, `${JSON.stringify(holder)}\n`, { flag: "wx" });
  try {
    await link(temporary, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

function sameHolder(left: LockHolder | undefined, right: LockHolder): boolean {
  return left?.pid === right.pid && left.runId === right.runId && left.hostname === right.hostname;
}

/** Move a stale lock aside; false when someone else replaced it in the meantime. */
async function removeStaleLock(lockPath: string, stale: LockHolder): Promise<boolean> {
  const aside = `${lockPath}.${process.pid}.${randomUUID()}.stale`;
  try {
    await rename(lockPath, aside);
  } catch {
    return false;
  }
  const moved = await readLockHolder(aside);
  if (!sameHolder(moved, stale)) {
    // A live lock was moved by mistake: put it back unless a new one took its place.
    await link(aside, lockPath).catch(() => undefined);
    await unlink(aside).catch(() => undefined);
    return false;
  }
  await unlink(aside).catch(() => undefined);
  return true;
}

function describeHolder(holder: LockHolder | undefined): string {
  if (!holder) return "another run (the lock file is unreadable)";
  const since = holder.startedAt ? ` since ${holder.startedAt}` : "";
  return `run ${holder.runId} (pid ${holder.pid} on ${holder.hostname}${since})`;
}

function describeKey(key: string): string {
  const issue = key.match(/^issue-(\d+)$/)?.[1];
  if (issue) return `issue #${issue}`;
  if (key.startsWith("run-")) return `run ${key.slice("run-".length)}`;
  if (key.startsWith("tree-")) return "a working tree";
  return key.startsWith("branch-") ? `branch ${key.slice("branch-".length)}` : key;
}

/** Why the lock `key` can't be taken: its live holder, in the words of what it locks. */
function describeTaken(key: string, holder: LockHolder | undefined): string {
  if (key.startsWith("run-") && holder !== undefined) {
    const since = holder.startedAt ? ` since ${holder.startedAt}` : "";
    return `run ${holder.runId} is running (pid ${holder.pid} on host ${holder.hostname}${since})`;
  }
  if (key.startsWith("tree-")) {
    return `the working tree ${holder?.worktreePath ?? ""} is in use by ${describeHolder(holder)}`;
  }
  return `${describeKey(key)} is already taken by ${describeHolder(holder)}`;
}

function makeHeldLock(lockPath: string, holder: LockHolder): HeldLock {
  return {
    path: lockPath,
    holder,
    async release() {
      if (sameHolder(await readLockHolder(lockPath), holder)) {
        await unlink(lockPath).catch(() => undefined);
      }
    },
  };
}

/**
 * Take the lock `key`. A live holder → CloserError `lock_error` naming its pid
 * and run id; a holder that died on this host → recovered, with a warning.
 */
export async function acquireLock(options: AcquireLockOptions): Promise<AcquiredLock> {
  const locksDir =
    options.place === undefined
      ? await getLocksDir(options.cwd)
      : locksDirOf(options.cwd, options.place);
  await mkdir(locksDir, { recursive: true });
  const lockPath = path.join(locksDir, `${options.key}.lock`);
  const holder: LockHolder = {
    pid: process.pid,
    hostname: os.hostname(),
    startedAt: (options.now?.() ?? new Date()).toISOString(),
    runId: options.runId,
    ...(options.worktreePath ? { worktreePath: options.worktreePath } : {}),
    ...(options.branch ? { branch: options.branch } : {}),
  };
  const warnings: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createLockFile(lockPath, holder)) {
      return { lock: makeHeldLock(lockPath, holder), warnings };
    }
    const current = await readLockHolder(lockPath);
    if (!current || isHolderAlive(current)) {
      throw new CloserError("lock_error", describeTaken(options.key, current), {
        file: lockPath,
        found: describeHolder(current),
        fix: `wait for that run to end; if it is gone for good, delete ${lockPath}`,
      });
    }
    if (await removeStaleLock(lockPath, current)) {
      warnings.push(
        `recovered the lock on ${describeKey(options.key)}: ${describeHolder(current)} is no longer running`,
      );
    }
  }
  throw new CloserError("lock_error", `could not take the lock ${options.key}`, {
    file: lockPath,
    fix: "another run is taking the same lock; try again",
  });
}
