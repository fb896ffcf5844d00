/**
 * What a caller of the library adds to a run (docs/plugins.md): hooks called at the
 * loop's seams with a read-only view, and ports that replace one of the loop's own.
 */

import type { Declaration } from "./declaration.js";
import type { RunEvent } from "./events.js";
import type {
  PromptRenderer,
  PromptRequest,
  RenderedPrompt,
  RetryPrompt,
  RetryPromptBuilder,
  RetryPromptRequest,
} from "./prompts.js";
import type { AgentResult } from "./run-result.js";
import type { CheckContext, ValidatorOutcome, ValidatorRunner } from "./validator.js";

export interface Plugin {
  /** Names the plugin in the record, the progress and every error it causes. */
  readonly name: string;
  /**
   * True: a throw of the plugin ends the run with status `error` naming it
   * (docs/plugins.md#failures). Default false: the throw is recorded and the run goes on.
   */
  readonly required?: boolean;
  readonly hooks?: PluginHooks;
  readonly ports?: PluginPorts;
}

/** A hook is awaited; what it returns is not read, and its view is a frozen copy. */
export type Hook<View> = (view: View) => void | Promise<void>;

/** The loop's seams, in the order a run meets them (docs/plugins.md#hooks). */
export interface PluginHooks {
  readonly beforeQuery?: Hook<QueryView>;
  readonly afterResponse?: Hook<ResponseView>;
  readonly beforeChecks?: Hook<ChecksView>;
  readonly afterChecks?: Hook<CheckedView>;
  readonly onRetry?: Hook<RetryView>;
  readonly onEnd?: Hook<EndView>;
}

export type HookName = keyof PluginHooks;

export const HOOK_NAMES = [
  "beforeQuery",
  "afterResponse",
  "beforeChecks",
  "afterChecks",
  "onRetry",
  "onEnd",
] as const satisfies readonly HookName[];

/** The view each hook gets. */
export type HookView<H extends HookName> = Parameters<NonNullable<PluginHooks[H]>>[0];

/** An iteration's prompt, about to be sent. */
export interface QueryView {
  readonly iteration: number;
  readonly step: string;
  readonly checkId: string;
  /** `step`: the step's own prompt; else the retry the last iteration queued. */
  readonly kind: "step" | "retry" | "format-retry";
  /** The failure pattern of a retry prompt. */
  readonly pattern?: string;
  readonly prompt: string;
}

/** The model's answer to an iteration's query (after any repeats). */
export interface ResponseView {
  readonly iteration: number;
  readonly step: string;
  readonly text: string;
  readonly structuredOutput?: unknown;
  readonly costUsd: number;
  readonly durationMs: number;
}

/** The model declared completion; its checks are about to run. */
export interface ChecksView {
  readonly iteration: number;
  readonly step: string;
  readonly declaration: Declaration;
  /** The completion step's validators, in condition order. */
  readonly validators: readonly string[];
}

/** The verdict on a declaration. */
export interface CheckedView extends ChecksView {
  readonly complete: boolean;
  /** Each validator's outcome (none when an integrity guard failed before them). */
  readonly outcomes: readonly ValidatorOutcome[];
  /** What failed, when the declaration was refuted. */
  readonly failure?: {
    readonly name: string;
    readonly pattern: string;
    readonly detail: string;
    readonly params: Readonly<Record<string, unknown>>;
  };
}

/** A retry prompt queued for the next iteration. */
export interface RetryView {
  readonly iteration: number;
  readonly pattern: string;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly templatePath: string;
  readonly prompt: string;
}

/** How the run ended: the result `run()` returns, before the `run-end` event is written. */
export interface EndView {
  readonly result: AgentResult;
}

/** Ports a plugin may supply instead of the loop's own (docs/plugins.md#ports). */
export interface PluginPorts {
  /**
   * Runs a check. `next` is closer's own runner (the registry's validators), for the checks the
   * plugin does not answer itself. A run that uses it says so (docs/plugins.md#integrity).
   */
  readonly validatorRunner?: (
    validatorName: string,
    context: CheckContext,
    next: ValidatorRunner,
  ) => Promise<ValidatorOutcome>;
  /** Renders every prompt of the run (step, retry, closure review); `next` is closer's C3L lookup. */
  readonly promptResolver?: (
    request: PromptRequest,
    next: PromptRenderer,
  ) => Promise<RenderedPrompt>;
  /** Builds the retry prompt of a failed check; `next` is closer's (docs/retry.md#retry-prompt). */
  readonly retryPromptBuilder?: (
    request: RetryPromptRequest,
    next: RetryPromptBuilder,
  ) => Promise<RetryPrompt>;
  /** Gets a line for each notable event of the run. */
  readonly logger?: Logger;
  /** Gets every event of the run, in order, besides closer's own record. */
  readonly recordSink?: (event: RunEvent) => void | Promise<void>;
}

export type PortName = keyof PluginPorts;

export const PORT_NAMES = [
  "validatorRunner",
  "promptResolver",
  "retryPromptBuilder",
  "logger",
  "recordSink",
] as const satisfies readonly PortName[];

export type Logger = (entry: LogEntry) => void | Promise<void>;

export interface LogEntry {
  readonly level: "info" | "warn" | "error";
  /** One line, without colour. */
  readonly message: string;
  readonly event: RunEvent;
}
