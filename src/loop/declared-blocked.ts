import type { CompletionDecision } from "../completion/decide-completion.js";
import { summarizeIteration } from "../completion/summarize-iteration.js";
import type { BackendResponse } from "../ports/backend.js";
import { type RunContext, saveState, updateState } from "./run-context.js";
import type { Turn } from "./start-iteration.js";
import { stopped, type Terminal } from "./terminal-state.js";

/**
 * The model said it cannot go on (docs/completion.md#blocked): the run ends
 * `blocked` with its reason, no check runs. A resumed run starts from the
 * step prompt with this iteration's summary.
 */
export function declaredBlocked(
  run: RunContext,
  turn: Turn,
  response: BackendResponse,
  decision: CompletionDecision,
): Terminal {
  updateState(run, {
    pendingPrompt: undefined,
    previousSummary: summarizeIteration(turn.iteration, response, { decision }),
  });
  saveState(run);
  const reason = decision.blockedReason ?? "no reason given";
  return stopped(
    "blocked",
    `the model declared itself blocked in iteration ${turn.iteration} (${decision.source}): ${reason}`,
  );
}
