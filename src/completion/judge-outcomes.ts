import type { ValidatorOutcome } from "../ports/validator.js";

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
