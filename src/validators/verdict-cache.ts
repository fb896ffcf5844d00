import type { ValidatorDefinition } from "../ports/registry.js";
import type { ValidatorOutcome } from "../ports/validator.js";

/**
 * The outcomes of one run's checks, by the working tree's fingerprint and the
 * validator's definition (docs/completion.md#cached-verdicts). It lives in the
 * run's memory only: nothing the model writes can plant a verdict in it.
 */
export class VerdictCache {
  private readonly outcomes = new Map<string, ValidatorOutcome>();

  /**
   * The outcome this definition had on a tree with this fingerprint, marked `cached`: nothing
   * ran, so it took no time and nothing was re-run (a flaky pass was counted when it ran).
   */
  find(
    fingerprint: string,
    definition: ValidatorDefinition,
    params?: ConditionParams,
  ): ValidatorOutcome | undefined {
    if (!definition.cache) return undefined;
    const found = this.outcomes.get(keyOf(fingerprint, definition, params));
    if (found === undefined) return undefined;
    const { flaky: _counted, ...outcome } = found;
    return { ...outcome, durationMs: 0, cached: true };
  }

  /** Keeps an outcome that says something about the tree (see `isVerdictOnTree`). */
  keep(
    fingerprint: string,
    definition: ValidatorDefinition,
    outcome: ValidatorOutcome,
    params?: ConditionParams,
  ): void {
    if (definition.cache && isVerdictOnTree(outcome)) {
      this.outcomes.set(keyOf(fingerprint, definition, params), outcome);
    }
  }
}

/**
 * Whether an outcome is the tree's verdict: not a check the run's abort stopped, the
 * definition could not run, its timeout cut short, or the OS sandbox refused something.
 */
function isVerdictOnTree(outcome: ValidatorOutcome): boolean {
  return (
    outcome.aborted !== true &&
    outcome.configError === undefined &&
    outcome.timedOut !== true &&
    outcome.sandboxRefusals === undefined &&
    outcome.cached !== true
  );
}

/**
 * The definition as the run loaded it (from its snapshot): its command, extractors, timeout, …,
 * and the params its condition gives it.
 */
function keyOf(
  fingerprint: string,
  definition: ValidatorDefinition,
  params: ConditionParams | undefined,
): string {
  return `${fingerprint}\0${JSON.stringify(definition)}\0${JSON.stringify(params ?? {})}`;
}

type ConditionParams = Readonly<Record<string, unknown>>;
