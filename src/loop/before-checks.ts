import type { Declaration } from "../ports/declaration.js";
import type { Answer } from "./read-declaration.js";
import { type RunContext, warn } from "./run-context.js";

/**
 * The model declared completion: hands the declaration to the run's
 * `beforeChecks` (e.g. closer's commit of what the model left uncommitted)
 * before any check looks at the tree. A failing hook is a warning; the checks
 * that follow report the tree as it is.
 */
export async function beforeChecks(run: RunContext, answer: Answer): Promise<Declaration> {
  const { turn, response, summary: iterationSummary } = answer;
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
