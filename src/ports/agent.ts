/**
 * The resolved, immutable agent definition. Everything downstream reads these
 * types; nothing else touches the raw agent.json or steps_registry.json.
 * All defaults are applied by the loader, so no field here is "maybe unset"
 * unless absence itself means something.
 */

export type JsonSchema = Record<string, unknown>;

export type BackendKind = (typeof BACKEND_KINDS)[number];
export type PermissionMode = "default" | "acceptEdits" | "bypassPermissions" | "plan" | "dontAsk";
export type SessionPolicy = "continue" | "fresh";
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
export type ClosureAction = "close" | "label-only" | "label-and-close";
export type WorktreeOnSuccess = "merge" | "push" | "keep";

export interface ParameterDefinition {
  readonly name: string;
  readonly type: "string" | "number" | "boolean";
  readonly required: boolean;
  readonly default?: string | number | boolean;
  /** The CLI flag it is read from, e.g. `--issue`. */
  readonly flag: string;
  readonly description: string;
}

export interface BackendConfig extends OpenaiCompatibleKeys {
  readonly kind: BackendKind;
  /** Model for every step unless the step names its own; undefined = the backend's default. */
  readonly model?: string;
  readonly allowedTools: readonly string[];
  readonly disallowedTools: readonly string[];
  readonly permissionMode: PermissionMode;
  readonly sessionPolicy: SessionPolicy;
  /** Path of the Claude Code executable (CLOSER_CLAUDE_PATH wins over it). */
  readonly claudePath?: string;
  /** For the `command` and CLI backends: the executable and its arguments. */
  readonly command?: readonly string[];
  /** For the `command` backend: its program answers in the schema of `CLOSER_OUTPUT_SCHEMA`. */
  readonly readsOutputSchema?: boolean;
  /** For the `replay` backend: a recorded run folder or transcript file (relative to the agent folder). */
  readonly replayFrom?: string;
  /** Claude settings sources loaded by the SDK; empty for reproducible runs. */
  readonly settingSources: readonly ("user" | "project" | "local")[];
  readonly maxTurns?: number;
  /** Price of the model's tokens, for a backend that reports tokens but no cost (docs/backends.md#cost). */
  readonly pricing?: ModelPricing;
  /** The backend's processes get closer's GitHub tokens (docs/backends.md#passing-the-github-token). */
  readonly passGithubToken?: boolean;
}

/** USD per million tokens. */
export interface ModelPricing {
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  /** Default: the input price. */
  readonly cacheReadPerMTok?: number;
  /** Default: the input price. */
  readonly cacheWritePerMTok?: number;
}

export interface Budgets {
  readonly maxCostUsd?: number;
  readonly maxWallTimeMs?: number;
  /** Timeout of one backend query. */
  readonly queryTimeoutMs: number;
  /** Default timeout of a validator command (a validator's own timeoutMs wins). */
  readonly validatorTimeoutMs: number;
  /** Longest total wait of one query for an overloaded or unreachable model API. */
  readonly transientWaitMs: number;
}

export interface WorktreeConfig {
  readonly enabled: boolean;
  /** Folder that holds closer's worktrees, relative to the repository root. */
  readonly root: string;
  /** Branch name for an issue run; `{issue}` is replaced by the issue number. */
  readonly branchTemplate: string;
  readonly onSuccess: WorktreeOnSuccess;
  /** Commit leftover changes (message from the model's summary) before checking an issue run. */
  readonly autoCommit: boolean;
}

export interface GithubConfig {
  readonly labels: { readonly add: readonly string[]; readonly remove: readonly string[] };
  readonly closeAction: ClosureAction;
  readonly completionComment: boolean;
  readonly failureComment: boolean;
}

export interface LoggingConfig {
  /** Where run folders go; undefined = `<git dir>/closer/runs`. */
  readonly runsDir?: string;
  readonly verbose: boolean;
}

/** The run record's bounds (docs/record.md#bounded-record). */
export interface RecordConfig {
  /** What each stored text keeps, head and tail, in bytes. */
  readonly maxFieldBytes: number;
}

/** Variables of closer's environment the agent passes on purpose (docs/backends.md#environment). */
export interface EnvironmentPass {
  /** To every process that runs the model's code; a trailing `*` matches a prefix. */
  readonly pass: readonly string[];
  /** To the backend (and the tools it starts) only. */
  readonly backend: readonly string[];
  /** To the validators only. */
  readonly validators: readonly string[];
}

export type SandboxMode = "auto" | "on" | "off";

/** The OS sandbox of the processes that run the model's code (docs/sandbox.md#policy). */
export interface SandboxConfig {
  readonly mode: SandboxMode;
  /** More places they may write / may not read: absolute, `~/`-relative or relative to the tree. */
  readonly allowWrite: readonly string[];
  readonly denyRead: readonly string[];
  /** Hosts the backend may reach besides its model API; hosts the validators may reach. */
  readonly allowedDomains: readonly string[];
  readonly validatorDomains: readonly string[];
  /** Refused places and hosts that do not fail an attempt (docs/sandbox.md#refusals). */
  readonly ignoreRefusals: readonly string[];
}

export interface RunnerConfig {
  readonly backend: BackendConfig;
  readonly env: EnvironmentPass;
  /** Absolute path of the system prompt file (may not exist: then none is appended). */
  readonly systemPromptPath: string;
  readonly maxIterations: number;
  readonly budgets: Budgets;
  readonly worktree: WorktreeConfig;
  readonly github: GithubConfig;
  readonly logging: LoggingConfig;
  readonly record: RecordConfig;
  readonly sandbox: SandboxConfig;
  /** Consecutive undecidable declarations before the run ends with `error`. */
  readonly maxUndecidable: number;
  /**
   * Decision file the agent may write, relative to the working tree; without
   * it, `decision.json` in the run folder (docs/completion.md#decision-file).
   */
  readonly decisionFile?: string;
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

interface ValidatorBase {
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

export interface ResolvedAgent {
  /** Folder name under `.agent/`. */
  readonly name: string;
  readonly description: string;
  /** Absolute path of `.agent/<name>/`, or of a run's definition snapshot. */
  readonly dir: string;
  /** Absolute paths of the two definition files (for messages). */
  readonly files: { readonly agentJson: string; readonly registry: string };
  readonly parameters: Readonly<Record<string, ParameterDefinition>>;
  readonly runner: RunnerConfig;
  readonly registry: Registry;
  /**
   * The command line's values `applyCliOverrides` put over the files, so the
   * agent loaded again from a run's definition snapshot gets them too.
   */
  readonly cliOverrides?: CliOverrides;
}

/**
 * Values given on the command line that replace agent.json's. Every field is
 * optional: an absent field leaves the file's value (or its default) alone.
 */
export interface CliOverrides {
  /** `--max-iterations N`: runner.maxIterations. */
  readonly maxIterations?: number;
  /** `--backend NAME`: runner.backend.kind. */
  readonly backend?: string;
  /** `--model M`: runner.backend.model. */
  readonly model?: string;
  /** `--runs-dir DIR` (absolute): runner.logging.runsDir. */
  readonly runsDir?: string;
  /** `--verbose`: runner.logging.verbose (only ever turns it on). */
  readonly verbose?: boolean;
  /** `--no-worktree` (false): runner.worktree.enabled (only ever turns it off). */
  readonly worktree?: boolean;
  /** `--sandbox auto|on|off`: runner.sandbox.mode. */
  readonly sandbox?: string;
}

/**
 * The backend kinds, written once: agent.json's schema, the `BackendKind`
 * type, the `--backend` flag and makeBackend all read this list.
 */
export const BACKEND_KINDS = [
  "claude-sdk",
  "claude-cli",
  "codex",
  "opencode",
  "openai-compatible",
  "command",
  "replay",
  "scripted",
] as const;

/** The keys of `runner.backend` only the `openai-compatible` kind reads (docs/backends.md#openai-compatible). */
export interface OpenaiCompatibleKeys {
  /** The endpoint's base URL up to `/v1`, e.g. `http://localhost:11434/v1`. */
  readonly baseURL?: string;
  /** The environment variable holding the API key; without it no key is sent. */
  readonly apiKeyEnv?: string;
  /** Model calls allowed in one query (default 50). */
  readonly maxSteps?: number;
  /** How the step's schema is asked for (default `json-schema`). */
  readonly structuredOutput?: "json-schema" | "tool";
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
