import {
  CLOSURE_REVIEW_SCHEMA,
  type ClosureReviewReading,
  closureReviewWords,
  readClosureReview,
} from "../completion/closure-review.js";
import { queryBackend } from "./query-backend.js";
import { emit, keep, type RunContext } from "./run-context.js";
import { type Turn, variablesFor } from "./start-iteration.js";
import type { Terminal } from "./terminal-state.js";

const LABEL = "closure-review";

/**
 * Closure review (docs/completion.md#closure-review): after the validators pass, one extra query in
 * the same iteration asks the model to review its work as a checklist, in a
 * fixed schema. It waits out rate limits like any query.
 */
export async function reviewClosure(
  run: RunContext,
  turn: Turn,
  closureReview: { readonly c2: string; readonly c3: string },
): Promise<ClosureReviewReading | Terminal> {
  const prompt = await run.ports.renderPrompt({
    agentDir: run.agent.dir,
    words: closureReviewWords(run.agent.registry.c1, closureReview),
    variables: variablesFor(run, turn.iteration, turn.checkId, run.state.previousSummary),
  });
  keep(run.ports.record.savePrompt(turn.iteration, prompt.text, LABEL));
  emit(run, {
    type: "prompt",
    iteration: turn.iteration,
    step: turn.step.id,
    templatePath: prompt.templatePath,
    kind: "closure-review",
    chars: prompt.text.length,
  });
  const answer = await queryBackend(run, {
    ...turn.query,
    prompt: prompt.text,
    schema: CLOSURE_REVIEW_SCHEMA,
    label: LABEL,
  });
  if (answer.terminal) return answer.terminal;
  const reading = readClosureReview(answer.response, run.ports.schemaValidators);
  emit(run, {
    type: "closure-review",
    iteration: turn.iteration,
    allComplete: reading.ok && reading.complete,
    pendingActions: reading.ok ? [...reading.pendingActions] : [reading.error],
  });
  return reading;
}
