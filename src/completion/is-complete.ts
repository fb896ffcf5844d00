import type { CheckFailure } from "../ports/check-failure.js";
import type { Declaration, ExternalCondition } from "../ports/declaration.js";
import { externalFailure, reviewFailure, validationFailure } from "./check-failure.js";
import type { ClosureReviewReading } from "./closure-review.js";
import type { CompletionCheck } from "./judge-outcomes.js";

export interface CompletionEvidence {
  /** The completion step's conditions. */
  readonly validation: CompletionCheck;
  /** The closure review, when the completion step has one and it ran. */
  readonly closureReview?: ClosureReviewReading;
  /** Conditions supplied by the task (e.g. an issue run's branch state), checked in order. */
  readonly external: readonly ExternalCondition[];
  /** The declaration being checked: what the external conditions are given. */
  readonly declaration: Declaration;
}

export type CompletionVerdict =
  | { readonly complete: true }
  | { readonly complete: false; readonly failure: CheckFailure };

/**
 * CompletionHandler.isComplete: the model's declaration has already started
 * the check; the work is complete only when the validators passed, the
 * closure review (if any) agrees, and every external condition holds.
 * The first unmet one is returned. External conditions are checked only
 * after everything else passed, and a condition that throws is unmet.
 */
export async function isComplete(evidence: CompletionEvidence): Promise<CompletionVerdict> {
  const { validation, closureReview } = evidence;
  if (!validation.valid) return { complete: false, failure: validationFailure(validation) };
  if (closureReview !== undefined && !closureReview.ok) {
    return {
      complete: false,
      failure: reviewFailure([`answer the closure review in its schema (${closureReview.error})`]),
    };
  }
  if (closureReview?.ok === true && !closureReview.complete) {
    const { review } = closureReview;
    const notDone = review.checklist.filter((entry) => !entry.done);
    const asked =
      review.pendingActions.length > 0 ? review.pendingActions : closureReview.pendingActions;
    return { complete: false, failure: reviewFailure(asked, notDone) };
  }
  for (const condition of evidence.external) {
    const result = await checkSafely(condition, evidence.declaration);
    if (!result.ok)
      return { complete: false, failure: externalFailure(condition.name, result.detail) };
  }
  return { complete: true };
}

async function checkSafely(
  condition: ExternalCondition,
  declaration: Declaration,
): Promise<{ readonly ok: boolean; readonly detail?: string }> {
  try {
    return await condition.check(declaration);
  } catch (error) {
    return { ok: false, detail: `could not be checked: ${(error as Error).message}` };
  }
}
