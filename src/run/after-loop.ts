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
import type { WorktreeOnSuccess } from "../ports/runner-config.js";
import {
  type FinishWorktreeOptions,
  type FinishWorktreeResult,
  finishWorktree,
} from "../workspace/index.js";
import { readMoveSince } from "../workspace/verified-commit.js";
import type { RunOutcome, Serializer, SideEffectsReport, WorktreeEnd } from "./run-options.js";

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
  // A branch that moved after the verdict is refused before anything is said on GitHub.
  const sideEffects = (await movedAfterVerdict(options))
    ? undefined
    : await completionEffects(options);
  const ending = await endWorktree(options);
  const worktreeEnd = ending?.end;
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

/**
 * Whether the worktree's branch or HEAD left the commit the checks verified
 * (docs/integrity.md#one-commit): the merge or push will be refused, so the issue is neither
 * closed nor labelled.
 */
async function movedAfterVerdict(options: AfterLoopOptions): Promise<boolean> {
  const { worktree, completion } = options.result;
  const onSuccess = options.agent.runner.worktree.onSuccess;
  if (worktree === undefined || completion?.commit === undefined || onSuccess === "keep") {
    return false;
  }
  if (options.record.alreadyDone.includes(WORKTREE_FINISHED)) return false;
  const moved = await readMoveSince(worktree.path, worktree.branch, completion.commit).catch(
    () => undefined,
  );
  return moved !== undefined;
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

/** The worktree's end, and why closer refused to merge or push, when it did (docs/integrity.md#one-commit). */
interface WorktreeEnding {
  readonly end: WorktreeEnd;
  /** What was refused and why, in words that follow "but". */
  readonly refused?: string;
}

async function endWorktree(options: AfterLoopOptions): Promise<WorktreeEnding | undefined> {
  const worktree = options.result.worktree;
  if (worktree === undefined) return undefined;
  if (options.record.alreadyDone.includes(WORKTREE_FINISHED)) {
    return { end: { action: "merged", detail: "finished by an earlier attempt of this run" } };
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
  const onSuccess = options.agent.runner.worktree.onSuccess;
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
      ...pullRequestOf(options, worktree),
    });
    return endingOf(end, commit, onSuccess);
  } catch (error) {
    if (!isCloserError(error)) throw error;
    return { end: { action: "kept", detail: `${error.message}; the work is in ${worktree.path}` } };
  }
}

/** How an issue run's pushed branch becomes a pull request. */
function pullRequestOf(
  options: AfterLoopOptions,
  worktree: NonNullable<AgentResult["worktree"]>,
): Pick<FinishWorktreeOptions, "pullRequest"> {
  const { issue } = options;
  if (issue === undefined) return {};
  return {
    pullRequest: (branch: string) =>
      issue.client.createPullRequest({
        head: branch,
        base: worktree.baseBranch,
        title: issue.title,
        body: `Closes #${issue.number}\n\n${(options.result.completion ?? NO_COMPLETION).summary}`,
      }),
  };
}

/** The worktree's end in a sentence, naming the commit merged or pushed, or what was refused. */
function endingOf(
  end: FinishWorktreeResult,
  commit: string | undefined,
  onSuccess: WorktreeOnSuccess,
): WorktreeEnding {
  if (end.action === "merged") {
    const what = commit === undefined ? "" : `${commit} `;
    return {
      end: { action: "merged", detail: `merged ${what}into ${end.baseBranch} (${end.merge})` },
    };
  }
  if (end.action === "pushed") {
    const what = commit === undefined ? end.branch : `${commit} to ${end.branch}`;
    return {
      end: {
        action: "pushed",
        detail: `pushed ${what}`,
        ...(end.pullRequestUrl === undefined ? {} : { pullRequestUrl: end.pullRequestUrl }),
      },
    };
  }
  const detail = `${end.reason}; the work is in ${end.path}`;
  if (end.moved === undefined) return { end: { action: "kept", detail } };
  return {
    end: { action: "kept", detail },
    refused: `closer did not ${onSuccess} it: ${end.reason}`,
  };
}
