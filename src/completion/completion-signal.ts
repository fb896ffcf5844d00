import type { CompletionSignalConfig } from "../definition/types.js";
import { isPlainObject } from "../plain-object.js";

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
}

/** Defaults of docs/completion.md#completion-signal, for callers that have no registry value. */
export const DEFAULT_COMPLETION_SIGNAL: CompletionSignalConfig = Object.freeze({
  status: Object.freeze(["completed"]),
  action: Object.freeze(["complete", "closing"]),
});

/**
 * docs/completion.md#completion-signal: completion is declared when `status` is one of `config.status`
 * or `next_action.action` is one of `config.action`. Anything that is not an
 * object (including no output at all) declares nothing.
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
  const declared =
    (status !== undefined && config.status.includes(status)) ||
    (action !== undefined && config.action.includes(action));
  return {
    declared,
    ...(status === undefined ? {} : { status }),
    ...(action === undefined ? {} : { action }),
    ...(reason === undefined ? {} : { reason }),
  };
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
