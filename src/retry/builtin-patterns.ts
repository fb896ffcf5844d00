import { BUILTIN_PATTERN_NAMES as NAMES } from "../completion/check-failure.js";
import type { PatternDefinition } from "../definition/types.js";

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
  [NAMES.closureIncomplete]: {
    name: NAMES.closureIncomplete,
    description: "the closure review lists work that is not done",
    edition: "failed",
    adaptation: NAMES.closureIncomplete,
    params: ["pendingActions"],
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
});
