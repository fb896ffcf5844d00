import { isCloserError } from "../errors.js";
import {
  applyCompletionEffects,
  applyFailureEffects,
  type EffectsResult,
} from "../github/side-effects.js";
import type { AgentResult, FinishRecord } from "../loop/index.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { GithubClient } from "../ports/github.js";
import { finishWorktree } from "../workspace/index.js";
import type { RunOutcome, Serializer, SideEffectsReport, WorktreeEnd } from "./run-options.js";

/** Key of the worktree's merge or push in run.json's sideEffects, so a later attempt does not redo it. */
const WORKTREE_FINISHED = "worktree:finished";

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
}

const NO_COMPLETION = { summary: "", checksPassed: [] } as const;

/**
 * What closer does after the loop (docs/worktrees-and-github.md). After verified completion:
 * the issue's side effects, each exactly once, then the worktree is merged,
 * pushed or kept. After any other end: the worktree is kept and its path
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
  const sideEffects = await completionEffects(options);
  const worktreeEnd = await endWorktree(options);
  const failed = sideEffects?.failed;
  const warnings =
    worktreeEnd?.action === "kept" && options.agent.runner.worktree.onSuccess !== "keep"
      ? [...result.warnings, `the worktree was kept: ${worktreeEnd.detail}`]
      : result.warnings;
  return {
    ...result,
    ...issueField,
    success: failed === undefined,
    reason:
      failed === undefined
        ? result.reason
        : `${result.reason}, but the GitHub step "${failed.key}" failed: ${failed.message} (the work is verified; finish the step on GitHub, or run the issue again)`,
    warnings,
    ...(worktreeEnd === undefined ? {} : { worktreeEnd }),
    ...(sideEffects === undefined ? {} : { sideEffects }),
  };
}

async function completionEffects(
  options: AfterLoopOptions,
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

async function endWorktree(options: AfterLoopOptions): Promise<WorktreeEnd | undefined> {
  const worktree = options.result.worktree;
  if (worktree === undefined) return undefined;
  if (options.record.alreadyDone.includes(WORKTREE_FINISHED)) {
    return { action: "merged", detail: "finished by an earlier attempt of this run" };
  }
  const end = await options.serialize(() => finishSafely(options, worktree));
  const done = end.action !== "kept";
  if (done) await options.record.recordEffect(WORKTREE_FINISHED);
  await options.record.emit({
    type: "side-effect",
    action: `worktree-${end.action === "kept" ? "keep" : end.action === "merged" ? "merge" : "push"}`,
    target: worktree.branch,
    ok: done || options.agent.runner.worktree.onSuccess === "keep",
    detail: end.detail,
  });
  return end;
}

async function finishSafely(
  options: AfterLoopOptions,
  worktree: NonNullable<AgentResult["worktree"]>,
): Promise<WorktreeEnd> {
  const { issue } = options;
  try {
    const end = await finishWorktree({
      repoRoot: options.projectDir,
      worktree,
      outcome: "success",
      onSuccess: options.agent.runner.worktree.onSuccess,
      ...(options.pushToken ? { pushToken: options.pushToken } : {}),
      ...(issue === undefined
        ? {}
        : {
            pullRequest: (branch: string) =>
              issue.client.createPullRequest({
                head: branch,
                base: worktree.baseBranch,
                title: issue.title,
                body: `Closes #${issue.number}\n\n${(options.result.completion ?? NO_COMPLETION).summary}`,
              }),
          }),
    });
    if (end.action === "merged") {
      return { action: "merged", detail: `merged into ${end.baseBranch} (${end.merge})` };
    }
    if (end.action === "pushed") {
      return {
        action: "pushed",
        detail: `pushed ${end.branch}`,
        ...(end.pullRequestUrl === undefined ? {} : { pullRequestUrl: end.pullRequestUrl }),
      };
    }
    return { action: "kept", detail: `${end.reason}; the work is in ${end.path}` };
  } catch (error) {
    if (!isCloserError(error)) throw error;
    return { action: "kept", detail: `${error.message}; the work is in ${worktree.path}` };
  }
}
