/**
 * The end of a run's worktree: merge into the base (fast-forward when
 * possible), or push and open a pull request, then remove it; or keep it.
 */

import { type CloserError, isCloserError } from "../errors.js";
import type { WorktreeOnSuccess } from "../ports/runner-config.js";
import {
  isAncestor,
  isClean,
  type MergeResult,
  mergeBranch,
  pushBranch,
  resolveRevision,
  runGit,
} from "./git.js";
import { deleteBranch, findWorktreeOfBranch, removeWorktree } from "./git-worktree.js";

export interface FinishWorktreeOptions {
  readonly repoRoot: string;
  readonly worktree: {
    readonly path: string;
    readonly branch: string;
    readonly baseBranch: string;
  };
  readonly outcome: "success" | "failure";
  readonly onSuccess: WorktreeOnSuccess;
  /** Remote to push to (`onSuccess: "push"`); default `origin`. */
  readonly remote?: string;
  /** The token the push may use, for that one command (docs/worktrees-and-github.md#push-credential). */
  readonly pushToken?: string;
  /** Opens a pull request for the pushed branch and returns its URL. */
  readonly pullRequest?: (branch: string) => Promise<string>;
}

/** What happened to the worktree at the end of a run. */
export type FinishWorktreeResult =
  | {
      readonly action: "merged";
      readonly merge: Exclude<MergeResult, "conflict">;
      readonly baseBranch: string;
      readonly branchDeleted: boolean;
    }
  | { readonly action: "pushed"; readonly branch: string; readonly pullRequestUrl?: string }
  | {
      readonly action: "kept";
      readonly path: string;
      readonly branch: string;
      /** Why it was kept, in a sentence for the terminal. */
      readonly reason: string;
      readonly error?: CloserError;
    };

function kept(
  options: FinishWorktreeOptions,
  reason: string,
  error?: CloserError,
): FinishWorktreeResult {
  const { path: worktreePath, branch } = options.worktree;
  return { action: "kept", path: worktreePath, branch, reason, ...(error ? { error } : {}) };
}

/** Merge `branch` into `baseBranch` when no worktree has the base checked out. */
async function mergeWithoutCheckout(
  worktreePath: string,
  branch: string,
  baseBranch: string,
): Promise<MergeResult> {
  if (await isAncestor(worktreePath, branch, baseBranch)) return "up-to-date";
  const baseCommit = await resolveRevision(worktreePath, baseBranch);
  if (await isAncestor(worktreePath, baseBranch, branch)) {
    const branchCommit = await resolveRevision(worktreePath, branch);
    await runGit(worktreePath, [
      "update-ref",
      `refs/heads/${baseBranch}`,
      branchCommit,
      baseCommit,
    ]);
    return "fast-forward";
  }
  // The run's own worktree goes away after this, so it may host the merge.
  await runGit(worktreePath, ["checkout", "--quiet", "--detach", baseCommit]);
  const message = `Merge branch '${branch}' into ${baseBranch}`;
  const merge = await runGit(worktreePath, ["merge", "--no-ff", "--quiet", "-m", message, branch], {
    allowFailure: true,
  });
  if (merge.exitCode !== 0) {
    await runGit(worktreePath, ["merge", "--abort"], { allowFailure: true });
    await runGit(worktreePath, ["checkout", "--quiet", branch]);
    return "conflict";
  }
  const mergeCommit = await resolveRevision(worktreePath, "HEAD");
  await runGit(worktreePath, ["update-ref", `refs/heads/${baseBranch}`, mergeCommit, baseCommit]);
  await runGit(worktreePath, ["checkout", "--quiet", branch]);
  return "merge-commit";
}

async function mergeIntoBase(options: FinishWorktreeOptions): Promise<FinishWorktreeResult> {
  const { path: worktreePath, branch, baseBranch } = options.worktree;
  const target = await findWorktreeOfBranch(options.repoRoot, baseBranch);
  let merge: MergeResult;
  try {
    merge =
      target && !target.prunable
        ? await mergeBranch(target.path, branch)
        : await mergeWithoutCheckout(worktreePath, branch, baseBranch);
  } catch (error) {
    if (!isCloserError(error)) throw error;
    return kept(options, `merging into ${baseBranch} failed: ${error.message}`, error);
  }
  if (merge === "conflict") {
    return kept(options, `merging ${branch} into ${baseBranch} conflicts; resolve it by hand`);
  }
  await removeWorktree(options.repoRoot, worktreePath);
  const merged = await isAncestor(options.repoRoot, branch, baseBranch);
  if (merged) await deleteBranch(options.repoRoot, branch);
  return { action: "merged", merge, baseBranch, branchDeleted: merged };
}

async function pushAndOpenPullRequest(
  options: FinishWorktreeOptions,
): Promise<FinishWorktreeResult> {
  const { path: worktreePath, branch } = options.worktree;
  let pullRequestUrl: string | undefined;
  try {
    await pushBranch(worktreePath, branch, options.remote ?? "origin", options.pushToken);
    if (options.pullRequest) pullRequestUrl = await options.pullRequest(branch);
  } catch (error) {
    if (!isCloserError(error)) throw error;
    return kept(options, `publishing ${branch} failed: ${error.message}`, error);
  }
  await removeWorktree(options.repoRoot, worktreePath);
  return { action: "pushed", branch, ...(pullRequestUrl ? { pullRequestUrl } : {}) };
}

/**
 * End of a run: on success merge into the base (or push and open a pull
 * request) and remove the worktree; on failure, or when anything is in the
 * way (uncommitted work, a conflict), keep it and say why.
 */
export async function finishWorktree(
  options: FinishWorktreeOptions,
): Promise<FinishWorktreeResult> {
  if (options.outcome === "failure")
    return kept(options, "the run ended without verified completion");
  if (options.onSuccess === "keep")
    return kept(options, "the agent keeps worktrees (onSuccess: keep)");
  if (!(await isClean(options.worktree.path))) {
    return kept(options, "the worktree has uncommitted changes");
  }
  return options.onSuccess === "merge" ? mergeIntoBase(options) : pushAndOpenPullRequest(options);
}
