import type { CheckFailure } from "./check-failure.js";
import type { CompletionStepDefinition, PatternDefinition } from "./registry.js";

/** The five words that name a prompt: `prompts/{c1}/{c2}/{c3}/f_{edition}_{adaptation}.md`. */
export interface C3lWords {
  readonly c1: string;
  readonly c2: string;
  readonly c3: string;
  readonly edition: string;
  readonly adaptation?: string;
}

/** A prompt to render: the five C3L words, the variables, and for a retry its pattern. */
export interface PromptRequest {
  /** Absolute path of the agent folder. */
  readonly agentDir: string;
  readonly words: C3lWords;
  readonly variables: Readonly<Record<string, unknown>>;
  /** Present for retry prompts: enables the `f_failed.md` and built-in fallbacks. */
  readonly retry?: { readonly pattern: string; readonly params: readonly string[] };
}

export interface RenderedPrompt {
  readonly text: string;
  /** Relative to the agent folder, or `builtin:retry` for the built-in generic text. */
  readonly templatePath: string;
}

/** Renders prompts like `renderPrompt`, from templates it keeps (see `makePromptRenderer`). */
export type PromptRenderer = (request: PromptRequest) => Promise<RenderedPrompt>;

/** How much of an extracted param reaches a prompt (the run record keeps it whole). */
export interface CutLimits {
  /** Characters kept of a top-level string param (head and tail). */
  readonly maxChars: number;
  /** Characters kept of a string inside an array or object (e.g. one test's error). */
  readonly maxNestedChars: number;
  /** Entries kept of an array param. */
  readonly maxItems: number;
}

export interface RetryPromptRequest {
  readonly agentDir: string;
  /** The registry's `c1` (usually `steps`). */
  readonly c1: string;
  /** c2/c3 of the retry template come from here. */
  readonly completionStep: Pick<CompletionStepDefinition, "c2" | "c3">;
  readonly patternName: string;
  /** The registry's `completionPatterns`; built-in patterns fill in what it lacks. */
  readonly patterns: Readonly<Record<string, PatternDefinition>>;
  /** Params as extracted (whole); they are cut for the prompt here. */
  readonly params: Readonly<Record<string, unknown>>;
  /** The other failures found in the same iteration (`otherFailures`; docs/retry.md#also-found). */
  readonly others?: readonly CheckFailure[];
  /** 1-based number of this retry (the failed-check, format or undecidable count). */
  readonly attempt: number;
  /** The run's template variables (from `makeVariables`); the retry ones are added here. */
  readonly variables: Readonly<Record<string, unknown>>;
  /** prompts' renderer, injected because it reads template files. */
  readonly render: PromptRenderer;
  readonly limits?: CutLimits;
}

/** A rendered retry prompt; it has the fields of the run state's `PendingPrompt`. */
export interface RetryPrompt {
  readonly text: string;
  readonly kind: "retry" | "format-retry";
  readonly pattern: string;
  readonly templatePath: string;
  /** Notes of params that were cut for the prompt (the record keeps them whole). */
  readonly cuts: readonly string[];
}

export type RetryPromptBuilder = (request: RetryPromptRequest) => Promise<RetryPrompt>;
