import { isPlainObject } from "../plain-object.js";
import type { CompletionSignalConfig } from "../ports/registry.js";

/** The model's completion declaration as read from its structured output (docs/completion.md#completion-signal). */
export interface CompletionSignal {
  /** True when `status` or `next_action.action` is one the registry counts as completion. */
  readonly declared: boolean;
  /** The reported `status`, when the output has a string one. */
  readonly status?: string;
  /** The reported `next_action.action`, when the output has a string one. */
  readonly action?: string;
  /** `next_action.reason`, when given (carried into the next prompt's summary). */
  readonly reason?: string;
  /**
   * Set when `status` or `next_action.action` is `blocked` (docs/completion.md#blocked):
   * the model's reason (`next_action.reason`, else its `summary`).
   */
  readonly blockedReason?: string;
}

/** The status and action word that ends a run `blocked` (docs/completion.md#blocked). */
export const BLOCKED_WORD = "blocked";

/** Defaults of docs/completion.md#completion-signal, for callers that have no registry value. */
export const DEFAULT_COMPLETION_SIGNAL: CompletionSignalConfig = Object.freeze({
  status: Object.freeze(["completed"]),
  action: Object.freeze(["complete", "closing"]),
});

/**
 * docs/completion.md#completion-signal: completion is declared when `status` is one of `config.status`
 * or `next_action.action` is one of `config.action`, compared without regard to
 * case or surrounding spaces. Anything that is not an object (including no
 * output at all) declares nothing. `blocked` in either field is a declaration
 * of its own, and wins over completion.
 */
export function readCompletionSignal(
  structuredOutput: unknown,
  config: CompletionSignalConfig,
): CompletionSignal {
  if (!isPlainObject(structuredOutput)) return { declared: false };
  const status = stringField(structuredOutput, "status");
  const nextAction = structuredOutput.next_action;
  const action = isPlainObject(nextAction) ? stringField(nextAction, "action") : undefined;
  const reason = isPlainObject(nextAction) ? stringField(nextAction, "reason") : undefined;
  const blocked = isWord(status, [BLOCKED_WORD]) || isWord(action, [BLOCKED_WORD]);
  const declared = !blocked && (isWord(status, config.status) || isWord(action, config.action));
  const summary = stringField(structuredOutput, "summary");
  const blockedReason = (reason ?? summary ?? "").trim() || "no reason given";
  return {
    declared,
    ...(status === undefined ? {} : { status }),
    ...(action === undefined ? {} : { action }),
    ...(reason === undefined ? {} : { reason }),
    ...(blocked ? { blockedReason } : {}),
  };
}

/** Whether `value` is one of `words`, without regard to case or surrounding spaces. */
export function isWord(value: string | undefined, words: readonly string[]): boolean {
  if (value === undefined) return false;
  const wanted = value.trim().toLowerCase();
  return words.some((word) => word.trim().toLowerCase() === wanted);
}

/** True when the object carries a declaration at all (a status or a next action). */
export function hasDeclaration(value: Record<string, unknown>): boolean {
  const nextAction = value.next_action;
  return (
    typeof value.status === "string" ||
    (isPlainObject(nextAction) && typeof nextAction.action === "string")
  );
}

function stringField(object: Record<string, unknown>, key: string): string | undefined {
  const value = object[key];
  return typeof value === "string" ? value : undefined;
}
