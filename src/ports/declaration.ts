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
