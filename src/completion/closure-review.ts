import { deepFreeze } from "../plain-object.js";
import type { SchemaChecker } from "../ports/loop-ports.js";
import type { C3lWords } from "../ports/prompts.js";
import type { JsonSchema } from "../ports/runner-config.js";
import { type ResponseContent, readStructuredObject } from "./json-in-text.js";
import { SchemaValidators } from "./schema-validators.js";

/** One item of the model's closing checklist. */
export interface ChecklistItem {
  readonly item: string;
  readonly done: boolean;
  readonly evidence: string;
}

/** The closure review answer (docs/completion.md#closure-review). */
export interface ClosureReview {
  readonly allComplete: boolean;
  readonly checklist: readonly ChecklistItem[];
  readonly pendingActions: readonly string[];
}

export type ClosureReviewReading =
  | {
      readonly ok: true;
      readonly review: ClosureReview;
      /** `allComplete` and consistent: every item done and nothing pending. */
      readonly complete: boolean;
      /** What is left: `pendingActions`, then the items not done that it does not already name. */
      readonly pendingActions: readonly string[];
    }
  | { readonly ok: false; readonly error: string };

/** The fixed schema the closure review query answers in (docs/completion.md#closure-review). */
export const CLOSURE_REVIEW_SCHEMA: JsonSchema = deepFreeze({
  type: "object",
  additionalProperties: false,
  required: ["allComplete", "checklist", "pendingActions"],
  properties: {
    allComplete: { type: "boolean" },
    checklist: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["item", "done", "evidence"],
        properties: {
          item: { type: "string" },
          done: { type: "boolean" },
          evidence: { type: "string" },
        },
      },
    },
    pendingActions: { type: "array", items: { type: "string" } },
  },
});

/** The prompt of the review: `steps/{c2}/{c3}/f_default.md` (docs/completion.md#closure-review). */
export function closureReviewWords(
  c1: string,
  closureReview: { readonly c2: string; readonly c3: string },
): C3lWords {
  return { c1, c2: closureReview.c2, c3: closureReview.c3, edition: "default" };
}

/**
 * Reads the review from the structured output, or from the last JSON object in
 * the text when the backend gave none, and checks it against the fixed schema.
 * A review that says `allComplete: true` while an item is not done or an
 * action is pending contradicts itself and is read as not complete.
 */
export function readClosureReview(
  response: ResponseContent,
  validators: SchemaChecker = new SchemaValidators(),
): ClosureReviewReading {
  const candidate = readStructuredObject(response, (value) => "allComplete" in value);
  if (candidate === undefined) {
    return { ok: false, error: "the closure review gave no JSON answer" };
  }
  const check = validators.check(candidate, CLOSURE_REVIEW_SCHEMA);
  if (!check.valid) {
    return { ok: false, error: `the closure review does not match its schema: ${check.error}` };
  }
  const review = candidate as unknown as ClosureReview;
  const notDone = review.checklist
    .filter((entry) => !entry.done && !review.pendingActions.includes(entry.item))
    .map((entry) => entry.item);
  const pendingActions = [...review.pendingActions, ...notDone];
  return {
    ok: true,
    review,
    complete: review.allComplete && pendingActions.length === 0,
    pendingActions,
  };
}
