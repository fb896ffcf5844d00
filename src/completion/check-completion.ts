import type { ValidatorOutcome } from "../ports.js";

/** A completion condition: the name of a validator in the registry. */
export interface CompletionCondition {
  readonly validator: string;
}

/** Result of a completion step's conditions (docs/completion.md#validators). */
export type CompletionCheck =
  | { readonly valid: true; readonly outcomes: readonly ValidatorOutcome[] }
  | {
      readonly valid: false;
      /** Pattern of the first failing condition: it selects the retry template. */
      readonly pattern: string;
      readonly params: Readonly<Record<string, unknown>>;
      readonly validator: string;
      /** Every outcome that was run, in condition order. */
      readonly outcomes: readonly ValidatorOutcome[];
      /** Every failing outcome, the deciding one first. */
      readonly failures: readonly ValidatorOutcome[];
      /** Set when a validator could not run because the definition is wrong: the run ends with `error`. */
      readonly configError?: string;
    };

/** Runs one validator by name and returns what it found; it never throws for a failing check. */
export type RunValidatorByName = (validatorName: string) => Promise<ValidatorOutcome>;

export interface CheckCompletionOptions {
  /** Stop at the first failing condition (docs/completion.md#validators) instead of running all. */
  readonly stopAtFirstFailure?: boolean;
}

/**
 * CompletionValidator: runs the conditions in order. The first failing
 * condition decides the pattern (docs/completion.md#validators); by default the remaining
 * conditions still run, so the record and the next summary show every unmet
 * condition at once instead of one per iteration. A configuration error
 * stops at once: the later checks could not change the outcome.
 */
export async function checkCompletion(
  conditions: readonly CompletionCondition[],
  runOne: RunValidatorByName,
  options: CheckCompletionOptions = {},
): Promise<CompletionCheck> {
  const outcomes: ValidatorOutcome[] = [];
  for (const condition of conditions) {
    const outcome = await runOne(condition.validator);
    outcomes.push(outcome);
    if (outcome.configError !== undefined) break;
    if (!outcome.valid && options.stopAtFirstFailure === true) break;
  }
  const failures = outcomes.filter((outcome) => !outcome.valid);
  const first = failures[0];
  if (first === undefined) return { valid: true, outcomes };
  const configError = outcomes.find((outcome) => outcome.configError !== undefined)?.configError;
  return {
    valid: false,
    pattern: first.pattern ?? "failed",
    params: first.params,
    validator: first.validator,
    outcomes,
    failures,
    ...(configError === undefined ? {} : { configError }),
  };
}
