import path from "node:path";
import type { ResolvedAgent } from "../definition/types.js";
import type { RunState } from "../record/run-state.js";
import {
  acquireLock,
  branchLockKey,
  excludeCloserFiles,
  getMainWorktreeRoot,
  type HeldLock,
  issueLockKey,
  makeBranchName,
  prepareWorktree,
  resolveRevision,
} from "../workspace/index.js";
import type { Serializer } from "./run-options.js";

/** Where a run works, and what it holds while it does. */
export interface PreparedTree {
  /** The run's working tree: its worktree, or the project folder. */
  readonly cwd: string;
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
  readonly cwd: string;
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
 * Takes the run's lock (one per issue, or per branch) and creates or reuses
 * its worktree (1 issue = 1 branch = 1 worktree = 1 run). On any failure the
 * lock is given back.
 */
export async function prepareTree(options: PrepareTreeOptions): Promise<PreparedTree> {
  if (!options.inGit) return { cwd: options.cwd, release: async () => {}, warnings: [] };
  const branch = options.useWorktree ? branchOf(options) : undefined;
  const key =
    options.issue !== undefined
      ? issueLockKey(options.issue)
      : branch === undefined
        ? undefined
        : branchLockKey(branch);
  const held: { lock?: HeldLock; warnings: readonly string[] } =
    key === undefined
      ? { warnings: [] }
      : await acquireLock({
          cwd: options.cwd,
          key,
          runId: options.runId,
          ...(branch === undefined ? {} : { branch }),
        });
  const release = async () => {
    await held.lock?.release();
  };
  try {
    if (branch === undefined) {
      // The decision file lives under .closer/: keep it out of the tree's status and commits.
      const mainRoot = await getMainWorktreeRoot(options.cwd);
      await excludeCloserFiles(
        mainRoot,
        path.resolve(mainRoot, options.agent.runner.worktree.root),
      );
      const baseRevision = await resolveRevision(options.cwd, "HEAD");
      return { cwd: options.cwd, baseRevision, release, warnings: held.warnings };
    }
    const prepared = await options.serialize(() =>
      prepareWorktree({
        repoRoot: options.cwd,
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
      cwd: prepared.path,
      worktree,
      baseRevision: prepared.baseBranch,
      release,
      warnings: held.warnings,
    };
  } catch (error) {
    await release();
    throw error;
  }
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
