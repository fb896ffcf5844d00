import type { ValidatorDefinition } from "../ports/registry.js";
import type { CheckContext, ValidatorOutcome } from "../ports/validator.js";
import { makeChildEnvironment } from "../process/child-environment.js";

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

/** What a caller adds to a check's environment (closer itself adds nothing). */
export function makeCheckAdditions(context: CheckContext): Record<string, string> {
  return { ...context.env };
}

/**
 * The whole environment of a check's processes: the validators' environment
 * of the run's policy — never closer's GitHub tokens, and no `CLOSER_*` variable,
 * so nothing tells a check it is being measured (docs/integrity.md#toolchain) —
 * plus the caller's additions (docs/backends.md#environment).
 */
export function makeCheckEnv(context: CheckContext): Record<string, string> {
  const base = context.processEnv ?? makeChildEnvironment("validators", process.env);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base))
    if (!name.startsWith("CLOSER_")) env[name] = value;
  return { ...env, ...makeCheckAdditions(context) };
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
