import type { ValidatorDefinition } from "../definition/types.js";
import type { CheckContext, ValidatorOutcome } from "../ports.js";

/** The outcome of a check that failed because the definition itself is wrong. */
export function makeConfigErrorOutcome(
  definition: ValidatorDefinition,
  message: string,
  durationMs: number,
): ValidatorOutcome {
  return {
    validator: definition.name,
    valid: false,
    pattern: definition.failurePattern,
    params: {},
    durationMs,
    configError: message,
  };
}

/** The environment a check's code sees besides closer's own. */
export function makeCheckEnv(context: CheckContext): Record<string, string> {
  return { ...context.env, CLOSER_CHECK_ID: context.checkId };
}

export function elapsedMs(startedMs: number): number {
  return Math.round(performance.now() - startedMs);
}

/** A check the run's abort stopped: not a failure of the work, so no pattern and no findings. */
export function makeAbortedOutcome(
  definition: ValidatorDefinition,
  durationMs: number,
  output: { readonly stdout?: string; readonly stderr?: string } = {},
): ValidatorOutcome {
  return {
    validator: definition.name,
    valid: false,
    params: {},
    durationMs,
    aborted: true,
    ...output,
  };
}
