import type { ValidatorOutcome } from "./validator.js";

/** Which stage of the completion check found the gap. */
export type CheckFailureKind =
  | "format"
  | "decision"
  | "validator"
  | "guard"
  | "closure-review"
  | "external";

/**
 * One reason the work is not verifiably done, in the shape both the retry
 * prompt (`pattern`, `params`) and the next iteration's summary (`name`,
 * `detail`) read.
 */
export interface CheckFailure {
  readonly kind: CheckFailureKind;
  /** The validator or external condition; `response-format`, `decision`, `closure-review` for the built-in checks. */
  readonly name: string;
  /** The retry pattern that selects the template. */
  readonly pattern: string;
  /** Template params for the retry prompt (cut for the prompt later, by the retry stage). */
  readonly params: Readonly<Record<string, unknown>>;
  /** One line: what was found. */
  readonly detail: string;
  /** For a failed validation: every failing outcome, the deciding one first (claims are read against them). */
  readonly failedOutcomes?: readonly ValidatorOutcome[];
  /** The other failures found in the same iteration, told beside this one (docs/retry.md#also-found). */
  readonly others?: readonly CheckFailure[];
}

/** Built-in pattern names (docs/retry.md#builtin-patterns). */
export const BUILTIN_PATTERN_NAMES = {
  formatError: "format-error",
  reviewRejected: "review-rejected",
  undecidable: "undecidable",
  externalCondition: "external-condition",
  testsRemoved: "tests-removed",
  protectedChanged: "protected-changed",
  gitConfigChanged: "git-config-changed",
  sandboxRefused: "sandbox-refused",
  treeChanged: "tree-changed",
} as const;
