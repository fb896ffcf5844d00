import { summarizeIteration } from "../completion/summarize-iteration.js";
import type { BackendResponse } from "../ports/backend.js";
import type { Declaration } from "../ports/declaration.js";
import type { RunContext } from "./run-context.js";
import { warn } from "./run-context.js";
import type { Turn } from "./start-iteration.js";

/**
 * The model declared completion: hands the declaration to the run's
 * `beforeChecks` (e.g. closer's commit of what the model left uncommitted)
 * before any check looks at the tree. A failing hook is a warning; the checks
 * that follow report the tree as it is.
 */
export async function beforeChecks(
  run: RunContext,
  turn: Turn,
  response: BackendResponse,
): Promise<Declaration> {
  const iterationSummary = summarizeIteration(turn.iteration, response);
  const { summary, status } = iterationSummary;
  const declaration: Declaration = {
    iteration: turn.iteration,
    checkId: turn.checkId,
    ...(status === undefined ? {} : { status }),
    ...(summary === undefined ? {} : { summary }),
    ...(response.structuredOutput === undefined
      ? {}
      : { structuredOutput: response.structuredOutput }),
    iterationSummary,
  };
  try {
    await run.beforeChecks?.(declaration);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    warn(run, turn.iteration, `the step before the checks failed: ${message}`);
  }
  return declaration;
}
