import { BUILTIN_PATTERN_NAMES as NAMES } from "../ports/check-failure.js";
import type { CompletionStepDefinition, PatternDefinition } from "../ports/registry.js";

/**
 * Patterns closer itself produces. A registry pattern of the same name wins,
 * so an agent can re-describe them; their templates are
 * `f_failed_<adaptation>.md` like any other, with the usual fallbacks.
 */
export const BUILTIN_PATTERNS: Readonly<Record<string, PatternDefinition>> = Object.freeze({
  [NAMES.formatError]: {
    name: NAMES.formatError,
    description: "the response does not have the expected format",
    edition: "failed",
    adaptation: NAMES.formatError,
    params: ["formatError", "expectedFormat"],
  },
  [NAMES.reviewRejected]: {
    name: NAMES.reviewRejected,
    description: "the closure review rejected the work",
    edition: "failed",
    adaptation: NAMES.reviewRejected,
    params: ["pendingActions", "checklist"],
  },
  [NAMES.undecidable]: {
    name: NAMES.undecidable,
    description: "the completion declaration could not be read",
    edition: "failed",
    adaptation: NAMES.undecidable,
    params: ["decisionSource", "decisionReason"],
  },
  [NAMES.externalCondition]: {
    name: NAMES.externalCondition,
    description: "a condition of the task is not met",
    edition: "failed",
    adaptation: NAMES.externalCondition,
    params: ["condition", "detail"],
  },
  [NAMES.testsRemoved]: {
    name: NAMES.testsRemoved,
    description: "a test of the baseline is gone, skipped or focused away, or no test ran",
    edition: "failed",
    adaptation: NAMES.testsRemoved,
    params: [
      "validator",
      "missingTests",
      "skippedTests",
      "testsRanBefore",
      "testsRanNow",
      "focused",
      "noTestsRan",
    ],
  },
  [NAMES.protectedChanged]: {
    name: NAMES.protectedChanged,
    description: "a protected path changed since the run started",
    edition: "failed",
    adaptation: NAMES.protectedChanged,
    params: ["protectedPaths"],
  },
  [NAMES.gitConfigChanged]: {
    name: NAMES.gitConfigChanged,
    description: "the repository's git configuration, hooks or info/ changed during a query",
    edition: "failed",
    adaptation: NAMES.gitConfigChanged,
    params: ["gitPaths"],
  },
  [NAMES.sandboxRefused]: {
    name: NAMES.sandboxRefused,
    description: "the OS sandbox refused a write or a connection of the model's during a query",
    edition: "failed",
    adaptation: NAMES.sandboxRefused,
    params: ["refusals"],
  },
  [NAMES.treeChanged]: {
    name: NAMES.treeChanged,
    description: "the commit or the working tree changed while the checks of a declaration ran",
    edition: "failed",
    adaptation: NAMES.treeChanged,
    params: ["moved", "checkedCommit", "commitNow"],
  },
});

/**
 * The built-in patterns the check of a completion step can report: all of them, except
 * `review-rejected` for a step without a closure review.
 */
export function builtinPatternsFor(
  completionStep: Pick<CompletionStepDefinition, "closureReview">,
): PatternDefinition[] {
  return Object.values(BUILTIN_PATTERNS).filter(
    (pattern) => pattern.name !== NAMES.reviewRejected || Boolean(completionStep.closureReview),
  );
}
