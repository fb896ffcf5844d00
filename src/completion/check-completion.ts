import type { ValidatorOutcome } from "../ports/validator.js";
import { type CompletionCondition, type ConditionRunner, runConditions } from "./run-conditions.js";

export type { CompletionCondition };

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
      /** The validator whose definition is wrong, with `configError`. */
      readonly brokenValidator?: string;
    };

export interface CheckCompletionOptions {
  /** Stop at the first failing condition (docs/completion.md#validators) instead of running all. */
  readonly stopAtFirstFailure?: boolean;
  /** Validators running at once (docs/completion.md#concurrency); default all. */
  readonly concurrency?: number;
}

/**
 * CompletionValidator: runs the conditions, up to `concurrency` at once, and
 * judges their outcomes in condition order. The first failing condition
 * decides the pattern (docs/completion.md#validators), whichever finished
 * first; by default every condition runs, so the record and the next summary
 * show every unmet condition at once instead of one per iteration. A
 * configuration error starts no later check: they could not change the outcome.
 */
export async function checkCompletion(
  conditions: readonly CompletionCondition[],
  runner: ConditionRunner,
  options: CheckCompletionOptions = {},
): Promise<CompletionCheck> {
  const outcomes = await runConditions(conditions, runner, {
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    endsPhase: (outcome) =>
      outcome.configError !== undefined || (!outcome.valid && options.stopAtFirstFailure === true),
  });
  return judgeOutcomes(outcomes);
}

/** The verdict on a phase's outcomes, in condition order. */
export function judgeOutcomes(outcomes: readonly ValidatorOutcome[]): CompletionCheck {
  const failures = outcomes.filter((outcome) => !outcome.valid);
  const first = failures[0];
  if (first === undefined) return { valid: true, outcomes };
  const broken = outcomes.find((outcome) => outcome.configError !== undefined);
  return {
    valid: false,
    pattern: first.pattern ?? "failed",
    params: first.params,
    validator: first.validator,
    outcomes,
    failures,
    ...(broken?.configError === undefined
      ? {}
      : { configError: broken.configError, brokenValidator: broken.validator }),
  };
}
