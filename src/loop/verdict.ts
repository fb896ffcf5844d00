import type { CompletionDecision } from "../completion/decide-completion.js";
import type { CheckFailure } from "../ports/check-failure.js";
import type { IterationSummary, RunState } from "../ports/run-state.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import type { Answer } from "./read-declaration.js";

/**
 * What an answer comes to: the one result of the stages that judge it, which `endIteration`
 * ends the iteration by (docs/loop.md#the-loop).
 */
export type Verdict =
  /** No check ran (docs/loop.md#rule-1): the declaration's own word ends the iteration. */
  | {
      readonly kind: "incomplete" | "blocked" | "undecidable";
      readonly decision: CompletionDecision;
    }
  /** The answer lacks the completion step's format (docs/retry.md#format-retries). */
  | { readonly kind: "format-error"; readonly retry: RetryRequest }
  /** A guard or a check found a gap; `onFailure` decides what follows (docs/retry.md#on-failure). */
  | {
      readonly kind: "refuted";
      readonly failure: CheckFailure;
      /** False for a guard after an answer that declared nothing: no declaration is refuted. */
      readonly declared: boolean;
      /** Each validator's outcome, in condition order (none when no validator ran). */
      readonly outcomes: readonly ValidatorOutcome[];
      /** The commit the checks ran on (docs/integrity.md#one-commit); absent outside git. */
      readonly commit?: string;
      /** The tree the clean room held: the work as the checks judged it (docs/integrity.md#clean-room). */
      readonly tree?: string;
    }
  /** The checks confirmed the declaration, on `commit` (absent outside git). */
  | {
      readonly kind: "verified";
      readonly outcomes: readonly ValidatorOutcome[];
      readonly commit?: string;
      readonly tree?: string;
    };

/** The verdict of the checks a declaration started (docs/completion.md#checks). */
export type CheckedVerdict = Extract<Verdict, { readonly kind: "refuted" | "verified" }>;

/** A gap the model is told of in the next iteration's prompt (docs/loop.md#rule-2). */
export interface RetryRequest {
  readonly failure: CheckFailure;
  /** Which attempt of its counter this retry is (for the prompt's `attempt` and the record). */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** The iteration's summary with the gap beside the declaration (docs/loop.md#rule-3). */
  readonly previousSummary: IterationSummary;
}

/**
 * What run.json's `completion` keeps of an answer: its summary, the validators that passed and
 * the commit they ran on, the one closer merges or pushes (docs/integrity.md#one-commit).
 */
export function completionOf(
  answer: Answer,
  outcomes: readonly ValidatorOutcome[],
  commit?: string,
): NonNullable<RunState["completion"]> {
  const passed = outcomes.filter((outcome) => outcome.valid);
  return {
    summary: answer.summary.summary ?? "",
    checksPassed: [...new Set(passed.map((outcome) => outcome.validator))],
    ...(commit === undefined ? {} : { commit }),
  };
}
