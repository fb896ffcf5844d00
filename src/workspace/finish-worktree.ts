/**
 * The end of a run's worktree: merge into the base (fast-forward when
 * possible), or push and open a pull request, then remove it; or keep it.
 * Given the commit the checks verified, that commit is what is merged or
 * pushed, and only while the branch is still at it (docs/integrity.md#one-commit).
 */

import { type CloserError, isCloserError } from "../errors.js";
import type { GitHookRunner } from "../ports/git-hooks.js";
import type { WorktreeOnSuccess } from "../ports/runner-config.js";
import { deliverBranch, deliverToBase } from "./deliver-commit.js";
import {
  isAncestor,
  isClean,
  type MergeResult,
  mergeBranch,
  resolveRevision,
  runGit,
} from "./git.js";
import { pushBranch, pushCommit } from "./git-push.js";
import { deleteBranch, findWorktreeOfBranch, removeWorktree } from "./git-worktree.js";
import { type MovedRef, mergeCommit, readMoveSince } from "./verified-commit.js";

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
  /**
   * Runs the hooks git would have run for the merge or the push (post-merge, pre-push), which
   * closer's git does not (docs/worktrees-and-github.md#git-hooks). Without it, none runs.
   */
  readonly hooks?: GitHookRunner;
  /** Opens a pull request for the pushed branch (or finds the one open) and returns its URL. */
  readonly pullRequest?: (branch: string) => Promise<string>;
  /**
   * The verified work goes to the shared repository (docs/queue.md#delivery): `push` sets the
   * remote branch to the verified commit in place of an earlier attempt's, `merge` moves the
   * remote's base forward to it instead of merging locally.
   */
  readonly deliver?: boolean;
  /**
   * The run whose work this is: a delivering push also sets its marker ref on the remote, in the
   * same atomic push (docs/queue.md#exactly-once).
   */
  readonly runId?: string;
  /**
   * The commit the checks verified: merged or pushed exactly, and refused when the branch or
   * the worktree's HEAD moved from it since. Without it, the branch as it is.
   */
  readonly commit?: string;
}

/** What happened to the worktree at the end of a run. */
export type FinishWorktreeResult =
  | {
      readonly action: "merged";
      readonly merge: Exclude<MergeResult, "conflict">;
      readonly baseBranch: string;
      readonly branchDeleted: boolean;
    }
  | {
      readonly action: "pushed";
      /** The remote branch: the task branch, or the base (a delivered merge). */
      readonly branch: string;
      readonly pullRequestUrl?: string;
      /** The remote held the commit already (an earlier attempt of the run pushed it). */
      readonly alreadyThere?: boolean;
      /** The verified commit went to the remote's base branch (docs/queue.md#delivery). */
      readonly toBase?: boolean;
    }
  | {
      readonly action: "kept";
      readonly path: string;
      readonly branch: string;
      /** Why it was kept, in a sentence for the terminal. */
      readonly reason: string;
      readonly error?: CloserError;
      /** The branch or HEAD moved from the verified commit: the merge or push was refused. */
      readonly moved?: MovedRef;
    };

function kept(
  options: FinishWorktreeOptions,
  reason: string,
  why: { readonly error?: CloserError; readonly moved?: MovedRef } = {},
): FinishWorktreeResult {
  const { path: worktreePath, branch } = options.worktree;
  const { error, moved } = why;
  return {
    action: "kept",
    path: worktreePath,
    branch,
    reason,
    ...(error ? { error } : {}),
    ...(moved ? { moved } : {}),
  };
}

/**
 * Merge `source` (the verified commit, or the branch) into `baseBranch` when no worktree has the
 * base checked out; the base moves only from the commit it was read at (compare-and-swap).
 * No checkout of the user's moves, so no hook is run: the checkouts and the merge in the run's
 * own worktree, which goes away after, are closer's means (docs/worktrees-and-github.md#git-hooks).
 */
async function mergeWithoutCheckout(
  worktreePath: string,
  { source, branch, baseBranch }: MergeSource,
): Promise<MergeResult> {
  if (await isAncestor(worktreePath, source, baseBranch)) return "up-to-date";
  const baseCommit = await resolveRevision(worktreePath, baseBranch);
  if (await isAncestor(worktreePath, baseBranch, source)) {
    const sourceCommit = await resolveRevision(worktreePath, source);
    await runGit(worktreePath, [
      "update-ref",
      `refs/heads/${baseBranch}`,
      sourceCommit,
      baseCommit,
    ]);
    return "fast-forward";
  }
  // The run's own worktree goes away after this, so it may host the merge.
  await runGit(worktreePath, ["checkout", "--quiet", "--detach", baseCommit]);
  const message = mergeMessage(branch, baseBranch);
  const merge = await runGit(worktreePath, ["merge", "--no-ff", "--quiet", "-m", message, source], {
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

/** What a merge brings: `source` (a commit, or the branch itself), named by its branch. */
interface MergeSource {
  readonly source: string;
  readonly branch: string;
  readonly baseBranch: string;
}

function mergeMessage(branch: string, baseBranch: string): string {
  return `Merge branch '${branch}' into ${baseBranch}`;
}

/**
 * Merge into the base where it is checked out: the verified commit when there is one. A merge
 * that moved the checkout is followed by its post-merge hook (argument `0`: not a squash), as
 * git would; its exit code changes nothing, as in git.
 */
async function mergeInCheckout(cwd: string, options: FinishWorktreeOptions): Promise<MergeResult> {
  const { branch, baseBranch } = options.worktree;
  const merge =
    options.commit === undefined
      ? await mergeBranch(cwd, branch)
      : await mergeCommit(cwd, options.commit, mergeMessage(branch, baseBranch));
  if (options.hooks && (merge === "fast-forward" || merge === "merge-commit")) {
    await options.hooks({ hook: "post-merge", operation: "merge", args: ["0"], cwd });
  }
  return merge;
}

async function mergeIntoBase(options: FinishWorktreeOptions): Promise<FinishWorktreeResult> {
  const { path: worktreePath, branch, baseBranch } = options.worktree;
  const target = await findWorktreeOfBranch(options.repoRoot, baseBranch);
  const source = { source: options.commit ?? branch, branch, baseBranch };
  let merge: MergeResult;
  try {
    merge =
      target && !target.prunable
        ? await mergeInCheckout(target.path, options)
        : await mergeWithoutCheckout(worktreePath, source);
  } catch (error) {
    if (!isCloserError(error)) throw error;
    return kept(options, `merging into ${baseBranch} failed: ${error.message}`, { error });
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
  let alreadyThere = false;
  const remote = options.remote ?? "origin";
  try {
    const extras = { token: options.pushToken, hooks: options.hooks };
    if (options.commit === undefined) await pushBranch(worktreePath, branch, remote, extras);
    else if (options.deliver === true) {
      const commit = { commit: options.commit, branch, ...runIdOf(options) };
      alreadyThere =
        (await deliverBranch(worktreePath, commit, remote, extras)) === "already-there";
    } else await pushCommit(worktreePath, { commit: options.commit, branch }, remote, extras);
    if (options.pullRequest) pullRequestUrl = await options.pullRequest(branch);
  } catch (error) {
    if (!isCloserError(error)) throw error;
    return kept(options, `publishing ${branch} failed: ${error.message}`, { error });
  }
  await removeWorktree(options.repoRoot, worktreePath);
  return {
    action: "pushed",
    branch,
    ...(pullRequestUrl ? { pullRequestUrl } : {}),
    ...(alreadyThere ? { alreadyThere } : {}),
  };
}

/**
 * A delivered merge (docs/queue.md#delivery): the remote's base moves forward to exactly the
 * verified commit, or already holds it; then the worktree and the task branch go.
 */
async function pushIntoBase(
  options: FinishWorktreeOptions,
  commit: string,
): Promise<FinishWorktreeResult> {
  const { path: worktreePath, branch, baseBranch } = options.worktree;
  const extras = { token: options.pushToken, hooks: options.hooks };
  let delivered: Awaited<ReturnType<typeof deliverToBase>>;
  try {
    const target = { commit, base: baseBranch, ...runIdOf(options) };
    delivered = await deliverToBase(worktreePath, target, options.remote ?? "origin", extras);
  } catch (error) {
    if (!isCloserError(error)) throw error;
    return kept(options, `pushing to ${baseBranch} failed: ${error.message}`, { error });
  }
  await removeWorktree(options.repoRoot, worktreePath);
  await deleteBranch(options.repoRoot, branch);
  return {
    action: "pushed",
    branch: baseBranch,
    toBase: true,
    ...(delivered === "already-there" ? { alreadyThere: true } : {}),
  };
}

function runIdOf(options: FinishWorktreeOptions): { runId?: string } {
  return options.runId === undefined ? {} : { runId: options.runId };
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
  const moved = await movedSinceVerified(options);
  if (moved !== undefined) return moved;
  if (!(await isClean(options.worktree.path))) {
    return kept(options, "the worktree has uncommitted changes");
  }
  if (options.onSuccess === "push") return pushAndOpenPullRequest(options);
  if (options.deliver === true && options.commit !== undefined) {
    return pushIntoBase(options, options.commit);
  }
  return mergeIntoBase(options);
}

/** The branch or HEAD moved after the verdict: nothing the checks did not see is merged or pushed. */
async function movedSinceVerified(
  options: FinishWorktreeOptions,
): Promise<FinishWorktreeResult | undefined> {
  const { commit } = options;
  if (commit === undefined) return undefined;
  const { path: worktreePath, branch } = options.worktree;
  const moved = await readMoveSince(worktreePath, branch, commit);
  if (moved === undefined) return undefined;
  const what = moved.ref === "HEAD" ? "the worktree's HEAD" : `the branch ${branch}`;
  const verb = options.onSuccess === "merge" ? "merges" : "pushes";
  const reason = `${what} moved after the checks verified commit ${commit}: it is at ${moved.now || "no commit"} now, and closer ${verb} only the verified commit`;
  return kept(options, reason, { moved });
}
