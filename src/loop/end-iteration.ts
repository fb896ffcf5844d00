import { makeCheckId } from "../completion/decide-completion.js";
import { type IterationFindings, summarizeIteration } from "../completion/summarize-iteration.js";
import type { BackendResponse } from "../ports/backend.js";
import type { CheckFailure } from "../ports/check-failure.js";
import type { RunState } from "../ports/run-state.js";
import { emit, type RunContext, saveState, updateState } from "./run-context.js";
import { type Turn, variablesFor } from "./start-iteration.js";
import { completed, type Terminal } from "./terminal-state.js";

/**
 * Ends an iteration without a declaration (docs/loop.md#rule-1): no checks run,
 * the loop moves to the step's `next` (or stays), carrying the summary.
 */
export function goToNextStep(
  run: RunContext,
  turn: Turn,
  response: BackendResponse,
  findings: IterationFindings,
): void {
  updateState(run, {
    stepId: turn.step.next ?? turn.step.id,
    pendingPrompt: undefined,
    previousSummary: summarizeIteration(turn.iteration, response, findings),
  });
  saveState(run);
}

/** A gap a check found, and which counter its retry answers (for the prompt's `attempt` and the record). */
export interface RetryRequest {
  readonly failure: CheckFailure;
  readonly attempt: number;
  readonly maxAttempts: number;
  /** What else the summary carries (e.g. the undecidable decision). */
  readonly findings?: IterationFindings;
}

/**
 * Ends an iteration whose check found a gap (docs/loop.md#rule-2): the retry
 * prompt chosen by the failure pattern, filled with what the check found, is
 * rendered now and sent as the next iteration's prompt. The summary carries
 * the declaration and the finding forward (rule 3).
 */
export async function queueRetry(
  run: RunContext,
  turn: Turn,
  response: BackendResponse,
  request: RetryRequest,
): Promise<void> {
  const { failure, findings = {} } = request;
  const previousSummary = summarizeIteration(turn.iteration, response, { ...findings, failure });
  const nextCheckId = makeCheckId(run.ports.clock.randomId);
  const retry = await run.ports.buildRetryPrompt({
    agentDir: run.agent.dir,
    c1: run.agent.registry.c1,
    completionStep: turn.completionStep ?? { c2: "retry", c3: turn.step.c3 },
    patternName: failure.pattern,
    patterns: run.agent.registry.completionPatterns,
    params: failure.params,
    attempt: request.attempt,
    variables: {
      ...variablesFor(run, turn.iteration + 1, nextCheckId, previousSummary),
      refutedClaims: [...(previousSummary.refutedClaims ?? [])],
    },
    render: run.ports.renderPrompt,
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

/** The checks confirmed the declaration: the run is complete. */
export function acceptCompletion(
  run: RunContext,
  turn: Turn,
  response: BackendResponse,
  completion: NonNullable<RunState["completion"]>,
): Terminal {
  updateState(run, {
    counters: { ...run.state.counters, failedChecks: 0 },
    pendingPrompt: undefined,
    previousSummary: summarizeIteration(turn.iteration, response),
    completion,
  });
  return completed(`verified in iteration ${turn.iteration}`);
}
