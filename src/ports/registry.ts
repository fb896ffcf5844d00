import type { BackendConfig } from "./runner-config.js";

/** A completion step's closure review (docs/completion.md#closure-review). */
export interface ClosureReviewDefinition {
  readonly c2: string;
  readonly c3: string;
  /** `fresh`: a new session without the worker's history; `worker`: the worker's session. */
  readonly session: "fresh" | "worker";
  /** Rejections before the run ends `blocked`. */
  readonly maxRejections: number;
  /** Another backend for the review (it then always works in a session of its own). */
  readonly backend?: BackendConfig;
}

export interface OutputSchemaRef {
  readonly file: string;
  /** A top-level key, a `$defs`/`definitions` name, or a `#/…` pointer. */
  readonly schema: string;
}

export interface StepDefinition {
  readonly id: string;
  readonly name: string;
  readonly c2: string;
  readonly c3: string;
  readonly edition: string;
  readonly adaptation?: string;
  readonly outputSchemaRef?: OutputSchemaRef;
  /** The step after this one when the model does not declare completion; undefined = stay. */
  readonly next?: string;
  readonly completionStep?: string;
  readonly model?: string;
}

export interface PatternDefinition {
  readonly name: string;
  readonly description: string;
  readonly edition: string;
  readonly adaptation: string;
  /** Variables the retry template needs, filled by the validators mapped to this pattern. */
  readonly params: readonly string[];
}

export type SuccessWhen =
  | { readonly kind: "empty" }
  | { readonly kind: "not-empty" }
  | { readonly kind: "exitCode"; readonly code: number }
  | { readonly kind: "contains"; readonly text: string }
  | { readonly kind: "matches"; readonly regex: string };

/** Extractor names of docs/completion.md#extract-params. */
export type ExtractorName = (typeof EXTRACTOR_NAMES)[number];

export interface ValidatorBase {
  readonly name: string;
  readonly failurePattern: string;
  /** Template param → extractor; empty for a custom validator, whose module returns its params. */
  readonly extractParams: Readonly<Record<string, ExtractorName>>;
  /** Times a failing run is repeated to tell a flaky check (docs/completion.md#flaky-checks); default 0. */
  readonly reruns: number;
  /** false: an outcome is never reused on an unchanged tree (docs/completion.md#cached-verdicts). */
  readonly cache: boolean;
}

export interface CommandValidatorDefinition extends ValidatorBase {
  readonly type: "command";
  readonly command: string;
  readonly successWhen: SuccessWhen;
  /** The raw `successWhen` text, for messages. */
  readonly successWhenText: string;
  readonly timeoutMs: number;
}

/** A `file` validator: `path` (relative to the working tree; glob allowed) and `contains` (text, or `/…/flags`). */
export interface FileValidatorDefinition extends ValidatorBase {
  readonly type: "file";
  readonly path: string;
  readonly contains?: string;
}

export interface CustomValidatorDefinition extends ValidatorBase {
  readonly type: "custom";
  /** Absolute path of the module (given relative to the agent folder). */
  readonly module: string;
  /** The module's time to answer: `runner.budgets.validatorTimeoutMs`. */
  readonly timeoutMs: number;
}

export type ValidatorDefinition =
  | CommandValidatorDefinition
  | CustomValidatorDefinition
  | FileValidatorDefinition;

export type ResponseFormat =
  | { readonly type: "json"; readonly requiredFields: readonly string[] }
  | { readonly type: "text-pattern"; readonly pattern: string }
  | { readonly type: "action-block"; readonly actionType?: string };

export interface OnFailure {
  readonly action: "retry" | "abort" | "skip";
  readonly maxAttempts: number;
}

export interface CompletionStepDefinition {
  readonly id: string;
  readonly name: string;
  readonly c2: string;
  readonly c3: string;
  /** The schema of the declaration checked at this step (docs/completion.md#completion-prompt). */
  readonly outputSchemaRef?: OutputSchemaRef;
  readonly responseFormat?: ResponseFormat;
  /** The completion prompt's C3L words (docs/completion.md#completion-prompt). */
  readonly prompt?: { readonly c2: string; readonly c3: string; readonly edition: string };
  readonly completionConditions: readonly {
    readonly validator: string;
    readonly params?: Readonly<Record<string, unknown>>;
  }[];
  /** How many of the conditions' validators run at once (docs/completion.md#concurrency); absent: all. */
  readonly concurrency?: number;
  readonly closureReview?: ClosureReviewDefinition;
  readonly onFailure: OnFailure;
  readonly maxFormatRetries: number;
}

export interface CompletionSignalConfig {
  readonly status: readonly string[];
  readonly action: readonly string[];
}

export interface Registry {
  readonly agentId: string;
  readonly c1: string;
  readonly entryStep: string;
  readonly completionSignal: CompletionSignalConfig;
  readonly completionPatterns: Readonly<Record<string, PatternDefinition>>;
  readonly validators: Readonly<Record<string, ValidatorDefinition>>;
  readonly steps: Readonly<Record<string, StepDefinition>>;
  readonly completionSteps: Readonly<Record<string, CompletionStepDefinition>>;
  /** Globs the model must not change, besides the defaults (docs/integrity.md#protected-paths). */
  readonly protectedPaths: readonly string[];
}

/** Every extractor of docs/completion.md#extract-params, in the order the docs list them. */
export const EXTRACTOR_NAMES = [
  "stdout",
  "stderr",
  "output",
  "exitCode",
  "parseChangedFiles",
  "parseUntrackedFiles",
  "parseTestOutput",
  "parseTestInventory",
  "parseTypeErrors",
  "parseLintErrors",
] as const;
