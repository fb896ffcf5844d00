import type { ClosureReviewDefinition } from "../ports/registry.js";
import { normalizeBackend } from "./normalize-agent.js";
import type { RegistryCompletionStep } from "./registry-file-schema.js";

/** A completion step's `closureReview` with its defaults (docs/completion.md#closure-review). */
export function normalizeClosureReview(
  review: NonNullable<RegistryCompletionStep["closureReview"]>,
): ClosureReviewDefinition {
  const { backend, ...rest } = review;
  return { ...rest, ...(backend === undefined ? {} : { backend: normalizeBackend(backend) }) };
}
