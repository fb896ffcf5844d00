import { isCloserError } from "../errors.js";
import {
  applyCompletionEffects,
  applyFailureEffects,
  type EffectsResult,
} from "../github/side-effects.js";
import type { AgentResult, FinishRecord } from "../loop/index.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { GitHookRunner } from "../ports/git-hooks.js";
import type { GithubClient } from "../ports/github.js";
import { type FinishWorktreeOptions, finishWorktree } from "../workspace/index.js";
import { notDelivered, publishedEarlier, pullRequestOnce } from "./delivered-work.js";
import type { RunOutcome, Serializer, SideEffectsReport, WorktreeEnd } from "./run-options.js";
import { endingOf, type WorktreeEnding } from "./worktree-ending.js";

/** The `side-effect` action's step for each end of the worktree. */
const STEP_OF = { kept: "keep", merged: "merge", pushed: "push" } as const;

/** Key of the worktree's merge or push in run.json's sideEffects, so a later attempt does not redo it. */
export const WORKTREE_FINISHED = "worktree:finished";

/** The issue of an issue run, and how to reach it. */
export interface FinishIssue {
  readonly number: number;
  readonly title: string;
  readonly client: GithubClient;
}

export interface AfterLoopOptions {
  readonly result: AgentResult;
  readonly agent: ResolvedAgent;
  /** The project folder (inside the repository). */
  readonly projectDir: string;
  /** The run's record; it knows the side effects done by earlier attempts of the run. */
  readonly record: FinishRecord;
  readonly issue?: FinishIssue;
  readonly serialize: Serializer;
  /** The GitHub token a push may use, for that one git command. */
  readonly pushToken?: string;
  /**
   * The hooks of the merge or push, run by closer without credentials or skipped
   * (docs/worktrees-and-github.md#git-hooks), each on the record; without it, none runs.
   */
  readonly gitHooks?: (record: FinishRecord) => GitHookRunner;
}

const NO_COMPLETION = { summary: "", checksPassed: [] } as const;

/**
 * What closer does after the loop (docs/worktrees-and-github.md). After verified completion:
 * the worktree is merged, pushed (or delivered to origin, docs/queue.md#delivery) or kept,
 * then the issue's side effects, each exactly once, naming what was published. After any other end: the worktree is kept and its path
 * reported, the optional failure comment is posted, and nothing is closed.
 */
export async function finishAfterLoop(options: AfterLoopOptions): Promise<RunOutcome> {
  const { result } = options;
  const issueField = options.issue === undefined ? {} : { issue: options.issue.number };
  if (result.status !== "completed") {
    const sideEffects = await failureEffects(options);
    const worktreeEnd: WorktreeEnd | undefined = result.worktree && {
      action: "kept",
      detail: `the run ended without verified completion; the work is kept in ${result.worktree.path}`,
    };
    return {
      ...result,
      ...issueField,
      ...(worktreeEnd === undefined ? {} : { worktreeEnd }),
      ...(sideEffects === undefined ? {} : { sideEffects }),
    };
  }
  // The worktree's end comes first, so the comment can name what it published; one that was
  // refused (a branch moved after the verdict, a delivery that failed) leaves the issue as it is.
  const ending = await endWorktree(options);
  const worktreeEnd = ending?.end;
  const sideEffects =
    ending?.refused === undefined ? await completionEffects(options, worktreeEnd) : undefined;
  const failed = sideEffects?.failed;
  const warnings =
    worktreeEnd?.action === "kept" && options.agent.runner.worktree.onSuccess !== "keep"
      ? [...result.warnings, `the worktree was kept: ${worktreeEnd.detail}`]
      : result.warnings;
  const githubFailure =
    failed === undefined
      ? ""
      : `, but the GitHub step "${failed.key}" failed: ${failed.message} (the work is verified; finish it with: closer run ${options.agent.name} --resume ${result.runId})`;
  const refusal = ending?.refused === undefined ? "" : `, but ${ending.refused}`;
  return {
    ...result,
    ...issueField,
    success: failed === undefined && ending?.refused === undefined,
    reason: `${result.reason}${githubFailure}${refusal}`,
    warnings,
    ...(worktreeEnd === undefined ? {} : { worktreeEnd }),
    ...(sideEffects === undefined ? {} : { sideEffects }),
  };
}

async function completionEffects(
  options: AfterLoopOptions,
  worktreeEnd: WorktreeEnd | undefined,
): Promise<SideEffectsReport | undefined> {
  const { issue, result } = options;
  if (issue === undefined) return undefined;
  const completion = result.completion ?? NO_COMPLETION;
  return report(
    options,
    await applyCompletionEffects({
      client: issue.client,
      issue: issue.number,
      runId: result.runId,
      config: options.agent.runner.github,
      summary: completion.summary,
      iterations: result.iterations,
      checksPassed: completion.checksPassed,
      costUsd: result.costUsd,
      ...(result.costByReason === undefined ? {} : { costByReason: result.costByReason }),
      ...(worktreeEnd?.delivered === undefined ? {} : { delivered: worktreeEnd.delivered }),
      alreadyDone: options.record.alreadyDone,
      record: (key) => recordDone(options, key),
    }),
  );
}

async function failureEffects(options: AfterLoopOptions): Promise<SideEffectsReport | undefined> {
  const { issue, result } = options;
  // After Ctrl-C the user is at the terminal; a comment would only delay the exit.
  if (issue === undefined || result.status === "aborted") return undefined;
  return report(
    options,
    await applyFailureEffects({
      client: issue.client,
      issue: issue.number,
      runId: result.runId,
      config: options.agent.runner.github,
      iterations: result.iterations,
      status: result.status,
      reason: result.reason,
      ...(result.worktree === undefined ? {} : { worktreePath: result.worktree.path }),
      alreadyDone: options.record.alreadyDone,
      record: (key) => recordDone(options, key),
    }),
  );
}

async function recordDone(options: AfterLoopOptions, key: string): Promise<void> {
  await options.record.recordEffect(key);
  await options.record.emit({
    type: "side-effect",
    action: key,
    target: `issue #${options.issue?.number ?? "?"}`,
    ok: true,
  });
}

async function report(
  options: AfterLoopOptions,
  effects: EffectsResult,
): Promise<SideEffectsReport> {
  const { failed } = effects;
  if (failed === undefined) return { performed: effects.performed, skipped: effects.skipped };
  const message = failed.error.describe();
  await options.record.emit({
    type: "side-effect",
    action: failed.key,
    target: `issue #${options.issue?.number ?? "?"}`,
    ok: false,
    detail: message,
  });
  return {
    performed: effects.performed,
    skipped: effects.skipped,
    failed: { key: failed.key, message },
  };
}

async function endWorktree(options: AfterLoopOptions): Promise<WorktreeEnding | undefined> {
  const worktree = options.result.worktree;
  if (worktree === undefined) return undefined;
  if (options.record.alreadyDone.includes(WORKTREE_FINISHED)) {
    const detail = "finished by an earlier attempt of this run";
    const { deliver, onSuccess } = options.agent.runner.worktree;
    if (deliver !== true) return { end: { action: "merged", detail } };
    const published = await publishedEarlier({
      onSuccess,
      worktree,
      ...(options.result.completion?.commit === undefined
        ? {}
        : { commit: options.result.completion.commit }),
      ...(options.issue === undefined ? {} : { client: options.issue.client }),
    });
    return { end: { action: "pushed", detail, ...published } };
  }
  const ending = await options.serialize(() => finishSafely(options, worktree));
  const { end } = ending;
  const done = end.action !== "kept";
  if (done) await options.record.recordEffect(WORKTREE_FINISHED);
  const onSuccess = options.agent.runner.worktree.onSuccess;
  // A refused merge or push is that step failing, not a worktree kept on purpose.
  const step = ending.refused === undefined ? STEP_OF[end.action] : onSuccess;
  await options.record.emit({
    type: "side-effect",
    action: `worktree-${step}`,
    target: worktree.branch,
    ok: done || (onSuccess === "keep" && ending.refused === undefined),
    detail: ending.refused === undefined ? end.detail : `refused: ${end.detail}`,
  });
  return ending;
}

async function finishSafely(
  options: AfterLoopOptions,
  worktree: NonNullable<AgentResult["worktree"]>,
): Promise<WorktreeEnding> {
  const { onSuccess, deliver = false } = options.agent.runner.worktree;
  const commit = options.result.completion?.commit;
  if (commit === undefined && onSuccess !== "keep") {
    const refused = `closer did not ${onSuccess} the branch: no commit was recorded as verified`;
    return {
      end: { action: "kept", detail: `${refused}; the work is in ${worktree.path}` },
      refused,
    };
  }
  try {
    const end = await finishWorktree({
      repoRoot: options.projectDir,
      worktree,
      outcome: "success",
      onSuccess,
      ...(commit === undefined ? {} : { commit }),
      ...(options.pushToken ? { pushToken: options.pushToken } : {}),
      ...(options.gitHooks === undefined ? {} : { hooks: options.gitHooks(options.record) }),
      ...(deliver ? { deliver, runId: options.result.runId } : {}),
      ...pullRequestOf(options, worktree),
    });
    return endingOf(end, { commit, onSuccess, deliver });
  } catch (error) {
    if (!isCloserError(error)) throw error;
    const detail = `${error.message}; the work is in ${worktree.path}`;
    return {
      end: { action: "kept", detail },
      ...(deliver ? { refused: notDelivered(error.message) } : {}),
    };
  }
}

/** How an issue run's pushed branch becomes a pull request, once (docs/queue.md#exactly-once). */
function pullRequestOf(
  options: AfterLoopOptions,
  worktree: NonNullable<AgentResult["worktree"]>,
): Pick<FinishWorktreeOptions, "pullRequest"> {
  const { issue, result } = options;
  if (issue === undefined) return {};
  const summary = (result.completion ?? NO_COMPLETION).summary;
  return {
    pullRequest: pullRequestOnce({
      ...issue,
      runId: result.runId,
      summary,
      base: worktree.baseBranch,
    }),
  };
}
