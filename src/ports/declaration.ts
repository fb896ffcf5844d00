import type { DecisionSource } from "./events.js";
import type { IterationSummary } from "./run-state.js";

/**
 * The model's declaration of completion, handed to `beforeChecks` and to the
 * external conditions (docs/completion.md#external-conditions).
 */
export interface Declaration {
  readonly iteration: number;
  readonly checkId: string;
  /** The status the model declared. */
  readonly status?: string;
  /** The model's own summary of its work (commit messages, the completion comment). */
  readonly summary?: string;
  /** The declaring response's structured output, as the model gave it (not a fact: the model wrote it). */
  readonly structuredOutput?: unknown;
  /** The iteration as the next prompt's `previousSummary` states it: status, next action, reason, tools. */
  readonly iterationSummary: IterationSummary;
}

/** A fact about the outside world that must hold before a run is complete (docs/completion.md#external-conditions). */
export interface ExternalCondition {
  /** Short name, e.g. "working tree clean". */
  readonly name: string;
  /** Whether it holds, given the declaration being checked. */
  check(declaration: Declaration): Promise<{ readonly ok: boolean; readonly detail?: string }>;
}

export type DecisionWord = "complete" | "incomplete" | "blocked" | "undecidable";

/** What one channel said, before the undecidable streak is counted. */
export interface ChannelReading {
  readonly source: DecisionSource;
  readonly decision: DecisionWord;
  /** Set when the decision file carried a check id: whether it is the current one. */
  readonly checkIdMatch?: boolean;
  /** The decision file belongs to an earlier check (wrong check id, or older than the check). */
  readonly stale?: boolean;
  /**
   * Why the result is undecidable or stale, as a stable code: `check-id-mismatch`,
   * `file-older-than-check`, `invalid-json`, `missing-decision`, `unknown-decision-word`,
   * `empty-decision-file`, `structured-output-not-object`, `no-decision`; and
   * `no-declaration` for a structured output without status or next action (incomplete).
   */
  readonly reason?: string;
  /** One human sentence about what was read (goes into the retry prompt and the record). */
  readonly detail: string;
  /** `status` / `next_action.action` of a structured declaration. */
  readonly status?: string;
  readonly action?: string;
  /** `reasons` of a JSON decision file. */
  readonly reasons?: readonly string[];
  /** For `blocked`: why the model says it cannot go on (docs/completion.md#blocked). */
  readonly blockedReason?: string;
}
