import path from "node:path";
import type { ResolvedAgent } from "../ports/agent.js";
import type { RunState } from "../ports/run-state.js";
import {
  acquireLock,
  branchLockKey,
  canonicalPath,
  excludeCloserFiles,
  type GitPlace,
  getMainWorktreeRoot,
  type HeldLock,
  issueLockKey,
  makeBranchName,
  prepareWorktree,
  resolveRevision,
  treeLockKey,
} from "../workspace/index.js";
import type { Serializer } from "./run-options.js";

/** Where a run works, and what it holds while it does. */
export interface PreparedTree {
  /** The run's working tree: its worktree, or the project folder. */
  readonly workTree: string;
  readonly worktree?: NonNullable<RunState["worktree"]>;
  /** What the run's commits are counted against: the base branch, or the commit it started from. */
  readonly baseRevision?: string;
  /** Releases the lock; safe to call twice. */
  release(): Promise<void>;
  readonly warnings: readonly string[];
}

export interface PrepareTreeOptions {
  readonly agent: ResolvedAgent;
  /** The project folder (inside the repository). */
  readonly projectDir: string;
  /** Where the project folder is in git. */
  readonly place: GitPlace;
  readonly runId: string;
  readonly issue?: number;
  readonly useWorktree: boolean;
  readonly branch?: string;
  readonly baseBranch?: string;
  /** Whether the run works in git at all (an issue run, or a worktree). */
  readonly inGit: boolean;
  /** The worktree a resumed run had. */
  readonly existing?: RunState["worktree"];
  readonly serialize: Serializer;
}

/**
 * Takes the run's locks — one per issue, or per branch, and one per working
 * tree for a run without a worktree (docs/integrity.md#run-lock) — and creates
 * or reuses its worktree (1 issue = 1 branch = 1 worktree = 1 run). On any
 * failure the locks are given back.
 */
export async function prepareTree(options: PrepareTreeOptions): Promise<PreparedTree> {
  const branch = options.inGit && options.useWorktree ? branchOf(options) : undefined;
  const held = await acquireLocks(options, await lockRequestsOf(options, branch));
  const { release, warnings } = held;
  if (!options.inGit) return { workTree: options.projectDir, release, warnings };
  try {
    if (branch === undefined) {
      // The decision file lives under .closer/: keep it out of the tree's status and commits.
      const mainRoot = await getMainWorktreeRoot(options.projectDir);
      await excludeCloserFiles(
        mainRoot,
        path.resolve(mainRoot, options.agent.runner.worktree.root),
      );
      const baseRevision = await resolveRevision(options.projectDir, "HEAD");
      return { workTree: options.projectDir, baseRevision, release, warnings };
    }
    const prepared = await options.serialize(() =>
      prepareWorktree({
        repoRoot: options.projectDir,
        branch,
        ...baseBranchOf(options),
        root: options.agent.runner.worktree.root,
      }),
    );
    const worktree = {
      path: prepared.path,
      branch: prepared.branch,
      baseBranch: prepared.baseBranch,
    };
    return {
      workTree: prepared.path,
      worktree,
      baseRevision: prepared.baseBranch,
      release,
      warnings,
    };
  } catch (error) {
    await release();
    throw error;
  }
}

interface LockRequest {
  readonly key: string;
  readonly branch?: string;
  readonly worktreePath?: string;
}

/** The issue's or the branch's lock, and the tree's when the run works without a worktree. */
async function lockRequestsOf(
  options: PrepareTreeOptions,
  branch: string | undefined,
): Promise<LockRequest[]> {
  const requests: LockRequest[] = [];
  if (options.issue !== undefined) requests.push({ key: issueLockKey(options.issue) });
  else if (branch !== undefined) requests.push({ key: branchLockKey(branch), branch });
  if (branch === undefined) {
    const tree = await canonicalPath(options.projectDir);
    requests.push({ key: treeLockKey(tree), worktreePath: tree });
  }
  return requests;
}

/** Takes every lock in order; on a failure the ones taken are given back. */
async function acquireLocks(
  options: PrepareTreeOptions,
  requests: readonly LockRequest[],
): Promise<{ release(): Promise<void>; warnings: readonly string[] }> {
  const held: HeldLock[] = [];
  const warnings: string[] = [];
  const release = async () => {
    for (const lock of held.reverse()) await lock.release();
    held.length = 0;
  };
  try {
    for (const request of requests) {
      const acquired = await acquireLock({
        cwd: options.projectDir,
        place: options.place,
        runId: options.runId,
        ...request,
      });
      held.push(acquired.lock);
      warnings.push(...acquired.warnings);
    }
  } catch (error) {
    await release();
    throw error;
  }
  return { release, warnings };
}

function branchOf(options: PrepareTreeOptions): string {
  if (options.existing !== undefined) return options.existing.branch;
  return makeBranchName({
    ...(options.issue === undefined ? {} : { issue: options.issue }),
    ...(options.branch === undefined ? {} : { branch: options.branch }),
    branchTemplate: options.agent.runner.worktree.branchTemplate,
  });
}

function baseBranchOf(options: PrepareTreeOptions): { baseBranch?: string } {
  const baseBranch = options.existing?.baseBranch ?? options.baseBranch;
  return baseBranch === undefined ? {} : { baseBranch };
}
