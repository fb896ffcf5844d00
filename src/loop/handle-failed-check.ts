import { undecidableFailure } from "../completion/check-failure.js";
import type { CompletionDecision } from "../completion/decide-completion.js";
import { addFailedCheck } from "../completion/summarize-iteration.js";
import { DEFAULT_ON_FAILURE } from "../definition/registry-file-schema.js";
import { BUILTIN_PATTERN_NAMES, type CheckFailure } from "../ports/check-failure.js";
import type { OnFailure } from "../ports/registry.js";
import { decideOnFailure } from "../retry/retry-prompt.js";
import type { Answer } from "./read-declaration.js";
import { emit, type RunContext, updateState, warn } from "./run-context.js";
import type { Turn } from "./start-iteration.js";
import { completed, failed, stopped, type Terminal } from "./terminal-state.js";
import { completionOf, type RetryRequest, type Verdict } from "./verdict.js";

/**
 * A declaration the checks did not confirm, by the completion step's
 * `onFailure` (docs/retry.md#on-failure): `retry` asks for the retry prompt of the next
 * iteration until the attempts are spent (`retries_exhausted`), `abort` stops
 * (`aborted`), `skip` accepts the work with a warning (`completed`).
 * A check that failed without a declaration (the git-state guard after
 * any query) is no refuted declaration.
 */
export function handleFailedCheck(
  run: RunContext,
  answer: Answer,
  verdict: Extract<Verdict, { kind: "refuted" }>,
): Terminal | RetryRequest {
  const { turn } = answer;
  const { failure } = verdict;
  const onFailure = onFailureFor(turn, failure);
  const failedChecks = run.state.counters.failedChecks + 1;
  const refutedDeclarations =
    (run.state.counters.refutedDeclarations ?? 0) + (verdict.declared ? 1 : 0);
  const previousSummary = addFailedCheck(answer.summary, failure, answer.response);
  if (verdict.declared) {
    emit(run, {
      type: "declaration-refuted",
      iteration: turn.iteration,
      claimed: answer.summary.summary ?? "",
      failed: failure.name,
      pattern: failure.pattern,
      detail: failure.detail,
      ...(previousSummary.refutedClaims === undefined
        ? {}
        : { claims: [...previousSummary.refutedClaims] }),
      refutedDeclarations,
    });
  }
  // A run that ends here and is resumed later starts from the step prompt and this summary.
  updateState(run, {
    counters: { ...run.state.counters, failedChecks, refutedDeclarations },
    pendingPrompt: undefined,
    previousSummary,
  });
  const found = `${failure.name} failed (${failure.pattern}): ${failure.detail}`;
  const blocked = blockedByReview(run, turn, failure);
  if (blocked !== undefined) return blocked;
  switch (decideOnFailure(onFailure, failedChecks)) {
    case "retry":
      return {
        failure,
        attempt: failedChecks,
        maxAttempts: onFailure.maxAttempts,
        previousSummary,
      };
    case "retries_exhausted":
      return stopped(
        "retries_exhausted",
        `${failedChecks} failed checks in a row (onFailure.maxAttempts is ${onFailure.maxAttempts}); last: ${found}`,
      );
    case "aborted":
      return stopped("aborted", `onFailure is abort and a check failed: ${found}`);
    case "skip":
      warn(run, turn.iteration, `accepted despite a failed check (onFailure skip): ${found}`);
      updateState(run, { completion: completionOf(answer, verdict.outcomes, verdict.commit) });
      return completed(`completed in iteration ${turn.iteration}, skipping a failed check`);
  }
}

/**
 * The closure review rejected the work `maxRejections` times: the run ends
 * `blocked` (docs/completion.md#closure-review), never accepted by `skip`.
 */
function blockedByReview(run: RunContext, turn: Turn, failure: CheckFailure): Terminal | undefined {
  const review = turn.completionStep?.closureReview;
  if (review === undefined || failure.pattern !== BUILTIN_PATTERN_NAMES.reviewRejected) {
    return undefined;
  }
  const rejections = run.state.review?.rejections ?? 0;
  if (rejections < review.maxRejections) return undefined;
  return stopped(
    "blocked",
    `the closure review rejected the work ${rejections} times (closureReview.maxRejections is ${review.maxRejections}); last: ${failure.detail}`,
  );
}

/** A guard's failure is never accepted: `skip` retries it instead (docs/integrity.md#guards). */
function onFailureFor(turn: Turn, failure: CheckFailure): OnFailure {
  const onFailure = turn.completionStep?.onFailure ?? DEFAULT_ON_FAILURE;
  if (failure.kind !== "guard" || onFailure.action !== "skip") return onFailure;
  return { action: "retry", maxAttempts: onFailure.maxAttempts };
}

/**
 * A declaration that could not be read (docs/completion.md#undecidable) is INCOMPLETE, not a
 * failure: the model gets a retry prompt saying what was wrong with it,
 * until `maxUndecidable` such results in a row end the run with `error`.
 */
export function handleUndecidable(
  run: RunContext,
  answer: Answer,
  decision: CompletionDecision,
): Terminal | RetryRequest {
  if (decision.exhausted) {
    updateState(run, { pendingPrompt: undefined, previousSummary: answer.summary });
    return failed("backend_error", decision.message ?? decision.detail);
  }
  const failure = undecidableFailure(decision);
  return {
    failure,
    attempt: decision.undecidableStreak,
    maxAttempts: run.agent.runner.maxUndecidable,
    previousSummary: addFailedCheck(answer.summary, failure, answer.response),
  };
}
