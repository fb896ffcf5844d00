export type JsonSchema = Record<string, unknown>;

export type BackendKind = (typeof BACKEND_KINDS)[number];

export type PermissionMode = "default" | "acceptEdits" | "bypassPermissions" | "plan" | "dontAsk";

export type SessionPolicy = "continue" | "fresh";

export type ClosureAction = "close" | "label-only" | "label-and-close";

export type WorktreeOnSuccess = "merge" | "push" | "keep";

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
  /** agent.json sets `onSuccess`: a delivering run keeps it instead of pushing (docs/queue.md#delivery). */
  readonly onSuccessSet?: boolean;
  /**
   * The verified work goes to the shared repository, `origin` (a queued job, `closer run
   * --deliver`): "merge" lands on origin's base branch, fast-forward only (docs/queue.md#delivery).
   */
  readonly deliver?: boolean;
  /** Commit leftover changes (message from the model's summary) before checking an issue run. */
  readonly autoCommit: boolean;
}

/**
 * What becomes of the user's git hooks for the git operations closer does itself
 * (docs/worktrees-and-github.md#git-hooks): closer runs them in the validators' sandbox
 * without credentials, or runs none.
 */
export type GitHooksMode = "sandboxed" | "skip";

/** closer's own git operations. */
export interface GitConfig {
  readonly hooks: GitHooksMode;
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
  /**
   * `auto` (the default when absent): the backend may also reach the package registries of the
   * ecosystems the tree uses; `none`: only what is listed (docs/sandbox.md#registries).
   */
  readonly registries?: "auto" | "none";
  /** Refused places and hosts that do not fail an attempt (docs/sandbox.md#refusals). */
  readonly ignoreRefusals: readonly string[];
}

/** The project's setup (docs/definition.md#setup): commands that make a tree ready before its baseline. */
export interface SetupConfig {
  /** Shell commands run in order through `/bin/sh -c` in the run's tree; empty: none. */
  readonly commands: readonly string[];
  /** Timeout of each command. */
  readonly timeoutMs: number;
}

export interface RunnerConfig {
  readonly backend: BackendConfig;
  /** The project's setup, run in a new run's tree before its baseline. */
  readonly setup: SetupConfig;
  readonly env: EnvironmentPass;
  /** Absolute path of the system prompt file (may not exist: then none is appended). */
  readonly systemPromptPath: string;
  readonly maxIterations: number;
  readonly budgets: Budgets;
  readonly worktree: WorktreeConfig;
  readonly git: GitConfig;
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
