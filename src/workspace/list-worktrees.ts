/**
 * closer's worktrees as `closer worktrees` shows them, and the safe removal of
 * the ones no run needs any more (`closer worktrees prune`).
 */
import { access, unlink } from "node:fs/promises";
import path from "node:path";
import { countCommitsAhead, getCurrentBranch, isAncestor, isClean } from "./git.js";
import {
  canonicalPath,
  deleteBranch,
  type GitWorktree,
  listGitWorktrees,
  pruneWorktreeRecords,
  removeWorktree,
} from "./git-worktree.js";
import { isHolderAlive, type LockHolder, listLocks } from "./lock.js";
import { DEFAULT_WORKTREE_ROOT } from "./prepare-worktree.js";

/** One of closer's worktrees. */
export interface CloserWorktree {
  readonly path: string;
  readonly branch?: string;
  /** Parsed from a branch named like `closer/issue-12`. */
  readonly issue?: number;
  /** False when the folder is gone but git still records the worktree. */
  readonly exists: boolean;
  /** Undefined when the folder is gone. */
  readonly clean?: boolean;
  /** Locked with `git worktree lock`: prune leaves it alone. */
  readonly gitLocked: boolean;
  /** The lock of a run on it, if any. */
  readonly lock?: {
    readonly key: string;
    readonly path: string;
    readonly holder: LockHolder;
    readonly alive: boolean;
  };
  /** Status of the last run there, when a run record was found. */
  readonly runStatus?: string;
  /** The branch of the main worktree, and whether this branch is merged into it. */
  readonly mainBranch?: string;
  readonly merged: boolean;
}

export interface ListWorktreesOptions {
  /** Folder of closer's worktrees, relative to the main worktree; default `.closer/worktrees`. */
  readonly root?: string;
  /** Finds the status of the last run in a worktree (e.g. from its run.json). */
  readonly readRunStatus?: (worktreePath: string) => Promise<string | undefined>;
}

async function folderExists(folder: string): Promise<boolean> {
  try {
    await access(folder);
    return true;
  } catch {
    return false;
  }
}

function issueOfBranch(branch: string | undefined): number | undefined {
  const match = branch?.match(/(?:^|\/)issue-(\d+)$/);
  return match?.[1] ? Number.parseInt(match[1], 10) : undefined;
}

async function isCloserWorktree(worktree: GitWorktree, rootPath: string): Promise<boolean> {
  if (worktree.main || worktree.bare) return false;
  if (worktree.branch?.startsWith("closer/")) return true;
  const relative = path.relative(rootPath, await canonicalPath(worktree.path));
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

async function describeWorktree(
  worktree: GitWorktree,
  context: {
    mainRoot: string;
    mainBranch: string | undefined;
    locks: Awaited<ReturnType<typeof listLocks>>;
    readRunStatus: ListWorktreesOptions["readRunStatus"];
  },
): Promise<CloserWorktree> {
  const exists = !worktree.prunable && (await folderExists(worktree.path));
  const issue = issueOfBranch(worktree.branch);
  const worktreePath = await canonicalPath(worktree.path);
  let lock: CloserWorktree["lock"];
  for (const candidate of context.locks) {
    const holderPath = candidate.holder.worktreePath;
    const matches =
      (holderPath !== undefined && (await canonicalPath(holderPath)) === worktreePath) ||
      (worktree.branch !== undefined && candidate.holder.branch === worktree.branch) ||
      (issue !== undefined && candidate.key === `issue-${issue}`);
    if (matches) lock = { ...candidate, alive: isHolderAlive(candidate.holder) };
  }
  const merged =
    worktree.branch !== undefined && context.mainBranch !== undefined
      ? await isAncestor(context.mainRoot, worktree.branch, context.mainBranch)
      : false;
  const runStatus = exists ? await context.readRunStatus?.(worktree.path) : undefined;
  return {
    path: worktree.path,
    exists,
    merged,
    gitLocked: worktree.locked,
    ...(worktree.branch ? { branch: worktree.branch } : {}),
    ...(issue !== undefined ? { issue } : {}),
    ...(exists ? { clean: await isClean(worktree.path) } : {}),
    ...(lock ? { lock } : {}),
    ...(runStatus ? { runStatus } : {}),
    ...(context.mainBranch ? { mainBranch: context.mainBranch } : {}),
  };
}

/** closer's worktrees: under the worktree root or on a `closer/` branch. */
export async function listWorktrees(
  repoRoot: string,
  options: ListWorktreesOptions = {},
): Promise<CloserWorktree[]> {
  const worktrees = await listGitWorktrees(repoRoot);
  const main = worktrees.find((worktree) => worktree.main && !worktree.bare);
  const mainRoot = main?.path ?? repoRoot;
  const rootPath = await canonicalPath(
    path.resolve(mainRoot, options.root ?? DEFAULT_WORKTREE_ROOT),
  );
  const context = {
    mainRoot,
    mainBranch: main ? await getCurrentBranch(main.path) : undefined,
    locks: await listLocks(repoRoot),
    readRunStatus: options.readRunStatus,
  };
  const result: CloserWorktree[] = [];
  for (const worktree of worktrees) {
    if (await isCloserWorktree(worktree, rootPath)) {
      result.push(await describeWorktree(worktree, context));
    }
  }
  return result;
}

/** One worktree prune removed or kept, and why. */
export interface PruneEntry {
  readonly path: string;
  readonly branch?: string;
  readonly reason: string;
  /** The branch was deleted too (it was merged). */
  readonly branchDeleted?: boolean;
}

export interface PruneResult {
  readonly removed: readonly PruneEntry[];
  readonly kept: readonly PruneEntry[];
}

export interface PruneWorktreesOptions {
  readonly repoRoot: string;
  /** Remove worktrees with uncommitted changes too (their changes are lost). */
  readonly force?: boolean;
  readonly root?: string;
}

async function removeOne(
  repoRoot: string,
  worktree: CloserWorktree,
  force: boolean,
): Promise<PruneEntry> {
  const base = { path: worktree.path, ...(worktree.branch ? { branch: worktree.branch } : {}) };
  if (worktree.exists) await removeWorktree(repoRoot, worktree.path, force);
  if (worktree.lock && !worktree.lock.alive)
    await unlink(worktree.lock.path).catch(() => undefined);
  const why = !worktree.exists
    ? "its folder is gone"
    : worktree.merged
      ? `its branch is merged into ${worktree.mainBranch}`
      : worktree.clean
        ? "no run holds it"
        : "no run holds it (uncommitted changes discarded by --force)";
  if (!worktree.branch) return { ...base, reason: why };
  if (worktree.merged) {
    await deleteBranch(repoRoot, worktree.branch);
    return { ...base, reason: `${why}; branch deleted`, branchDeleted: true };
  }
  const ahead = worktree.mainBranch
    ? await countCommitsAhead(repoRoot, worktree.branch, worktree.mainBranch)
    : 0;
  return { ...base, reason: `${why}; branch kept (${ahead} unmerged commit(s))` };
}

/**
 * Remove closer's orphaned worktrees: folder gone, branch merged, or no live
 * lock. A worktree with uncommitted work is kept unless `force`; one a live
 * run holds is always kept.
 */
export async function pruneWorktrees(options: PruneWorktreesOptions): Promise<PruneResult> {
  const worktrees = await listWorktrees(options.repoRoot, {
    ...(options.root ? { root: options.root } : {}),
  });
  const removed: PruneEntry[] = [];
  const kept: PruneEntry[] = [];
  if (worktrees.some((worktree) => !worktree.exists)) await pruneWorktreeRecords(options.repoRoot);
  for (const worktree of worktrees) {
    const base = { path: worktree.path, ...(worktree.branch ? { branch: worktree.branch } : {}) };
    if (worktree.lock?.alive) {
      const { runId, pid } = worktree.lock.holder;
      kept.push({ ...base, reason: `in use by run ${runId} (pid ${pid})` });
    } else if (worktree.gitLocked) {
      kept.push({ ...base, reason: "it is locked with git worktree lock" });
    } else if (worktree.exists && !worktree.clean && !options.force) {
      kept.push({ ...base, reason: "it has uncommitted changes (use --force to remove it)" });
    } else {
      removed.push(await removeOne(options.repoRoot, worktree, options.force ?? false));
    }
  }
  return { removed, kept };
}
