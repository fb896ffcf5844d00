import { type CompletionDecision, makeCheckId } from "../completion/decide-completion.js";
import { awaitBaseline } from "./baseline-checks.js";
import { handleFailedCheck, handleUndecidable } from "./handle-failed-check.js";
import { keepIterationDiff } from "./keep-iteration-diff.js";
import type { Answer } from "./read-declaration.js";
import { emit, type RunContext, saveState, updateState } from "./run-context.js";
import { variablesFor } from "./start-iteration.js";
import { completed, isTerminal, stopped, type Terminal } from "./terminal-state.js";
import { completionOf, type RetryRequest, type Verdict } from "./verdict.js";

/**
 * Ends an iteration by its verdict (docs/loop.md#the-loop): the run completes, moves to the
 * step's `next`, gets a retry prompt for the next iteration, or ends. Returns the end of the
 * run, or undefined when the loop goes on.
 */
export async function endIteration(
  run: RunContext,
  answer: Answer,
  verdict: Verdict,
): Promise<Terminal | undefined> {
  // run.json is written now: with the whole baseline, its checks beside the first query ended.
  // A model that declares itself blocked ends the run, which needs no baseline: the loop stops
  // its checks instead (docs/integrity.md#baseline-beside-query).
  if (verdict.kind !== "blocked") {
    const unrunnable = await awaitBaseline(run);
    if (unrunnable) return unrunnable;
  }
  // The clean room's tree is the work as it ends the iteration: no other tree to write.
  const judged = "tree" in verdict ? verdict.tree : undefined;
  await keepIterationDiff(run, answer.turn.iteration, judged); // docs/record.md#diffs
  const next = settle(run, answer, verdict);
  if (next === undefined || isTerminal(next)) return next;
  await queueRetry(run, answer, next);
  return undefined;
}

/** What the verdict comes to: the end of the run, a retry to queue, or neither (the loop goes on). */
function settle(
  run: RunContext,
  answer: Answer,
  verdict: Verdict,
): Terminal | RetryRequest | undefined {
  switch (verdict.kind) {
    case "incomplete":
      return goToNextStep(run, answer); // rule 1: no signal, no checks
    case "blocked":
      return declaredBlocked(run, answer, verdict.decision);
    case "undecidable":
      return handleUndecidable(run, answer, verdict.decision); // INCOMPLETE + retry
    case "format-error":
      return verdict.retry;
    case "refuted":
      return handleFailedCheck(run, answer, verdict); // onFailure: retry | abort | skip
    case "verified":
      return acceptCompletion(run, answer, verdict);
  }
}

/**
 * Ends an iteration without a declaration (docs/loop.md#rule-1): no checks run,
 * the loop moves to the step's `next` (or stays), carrying the summary.
 */
function goToNextStep(run: RunContext, answer: Answer): undefined {
  const { step } = answer.turn;
  updateState(run, {
    stepId: step.next ?? step.id,
    pendingPrompt: undefined,
    previousSummary: answer.summary,
  });
  saveState(run);
  return undefined;
}

/**
 * The model said it cannot go on (docs/completion.md#blocked): the run ends
 * `blocked` with its reason, no check runs. A resumed run starts from the
 * step prompt with this iteration's summary.
 */
function declaredBlocked(run: RunContext, answer: Answer, decision: CompletionDecision): Terminal {
  updateState(run, { pendingPrompt: undefined, previousSummary: answer.summary });
  saveState(run);
  const reason = decision.blockedReason ?? "no reason given";
  return stopped(
    "blocked",
    `the model declared itself blocked in iteration ${answer.turn.iteration} (${decision.source}): ${reason}`,
  );
}

/**
 * Ends an iteration whose check found a gap (docs/loop.md#rule-2): the retry
 * prompt chosen by the failure pattern, filled with what the check found, is
 * rendered now and sent as the next iteration's prompt. The summary carries
 * the declaration and the finding forward (rule 3).
 */
async function queueRetry(run: RunContext, answer: Answer, request: RetryRequest): Promise<void> {
  const { turn } = answer;
  const { failure, previousSummary } = request;
  const nextCheckId = makeCheckId(run.ports.clock.randomId);
  const retry = await run.ports.retryPromptBuilder({
    agentDir: run.agent.dir,
    c1: run.agent.registry.c1,
    completionStep: turn.completionStep ?? { c2: "retry", c3: turn.step.c3 },
    patternName: failure.pattern,
    patterns: run.agent.registry.completionPatterns,
    params: failure.params,
    ...(failure.others === undefined ? {} : { others: failure.others }),
    attempt: request.attempt,
    variables: {
      ...variablesFor(run, turn.iteration + 1, nextCheckId, previousSummary),
      refutedClaims: [...(previousSummary.refutedClaims ?? [])],
    },
    render: run.ports.promptResolver,
  });
  updateState(run, {
    pendingPrompt: {
      text: retry.text,
      kind: retry.kind,
      pattern: retry.pattern,
      templatePath: retry.templatePath,
      checkId: nextCheckId,
    },
    previousSummary,
  });
  emit(run, {
    type: "retry-select",
    iteration: turn.iteration,
    pattern: retry.pattern,
    templatePath: retry.templatePath,
    attempt: request.attempt,
    maxAttempts: request.maxAttempts,
  });
  saveState(run);
  await run.plugins.call("onRetry", {
    iteration: turn.iteration,
    pattern: retry.pattern,
    attempt: request.attempt,
    maxAttempts: request.maxAttempts,
    templatePath: retry.templatePath,
    prompt: retry.text,
  });
}

/** The checks confirmed the declaration: the run is complete, on the commit they ran on. */
function acceptCompletion(
  run: RunContext,
  answer: Answer,
  verdict: Extract<Verdict, { kind: "verified" }>,
): Terminal {
  updateState(run, {
    counters: { ...run.state.counters, failedChecks: 0 },
    pendingPrompt: undefined,
    previousSummary: answer.summary,
    completion: completionOf(answer, verdict.outcomes, verdict.commit),
  });
  return completed(`verified in iteration ${answer.turn.iteration}`);
}
