/**
 * The backend port: what the loop sends a model (through whichever agent it
 * drives) and what comes back. Part of the ports of src/ports.ts.
 */

import type { LaunchWrapper } from "./process.js";
import type { JsonSchema, PermissionMode } from "./runner-config.js";

export interface BackendRequest {
  readonly prompt: string;
  /** Resolved output schema of the step; undefined = free text. */
  readonly schema?: JsonSchema;
  /** Session to continue (policy `continue`); undefined = start a new one. */
  readonly sessionId?: string;
  readonly cwd: string;
  readonly model?: string;
  readonly allowedTools: readonly string[];
  readonly disallowedTools: readonly string[];
  readonly permissionMode: PermissionMode;
  /** Text appended to the backend's own system prompt. */
  readonly systemPrompt?: string;
  /**
   * Absolute paths the model must not write (docs/integrity.md#protected-paths); a backend that
   * can veto a tool use denies writes to them up front.
   */
  readonly protectedPaths?: readonly string[];
  /** What closer adds to its own environment for the backend (e.g. CLOSER_CHECK_ID). */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /**
   * Called by a backend that knows what the query has cost so far, with that running cost in USD
   * (this query alone); the loop aborts the query once the cost budget is spent
   * (docs/loop.md#budgets). Backends that learn the cost only at the end never call it.
   */
  readonly onCost?: (runningCostUsd: number) => void;
  /**
   * Called as the model's tool calls start and end, by a backend that sees them as they happen
   * (docs/observe.md#tool-calls): the live view and the record's `tool-call` events.
   */
  readonly onToolCall?: (activity: ToolActivity) => void;
  /** Starts the backend's processes inside the run's OS sandbox (docs/sandbox.md), when it is on. */
  readonly sandbox?: LaunchWrapper;
  /** Where closer puts what the backend's processes write (the gh shim's log): inside the sandbox's reach. */
  readonly tempDir?: string;
}

/** What a tool call of the model did, whatever the backend calls its tools (docs/observe.md#tool-calls). */
export type ToolAction = "write" | "edit" | "read" | "command" | "search" | "fetch" | "other";

/** A tool call of the model, as closer names it. */
export interface ToolCall {
  /** Pairs the call's start with its end within one query. */
  readonly id: string;
  /** The backend's own name for the tool: `Write`, `Bash`, `command_execution`, `write_file`. */
  readonly tool: string;
  readonly action: ToolAction;
  /** What it acted on: a path, a command line, a search pattern; "" when nothing names it. */
  readonly target: string;
}

/** A tool call starting, or ending with how it went. */
export type ToolActivity =
  | { readonly phase: "start"; readonly call: ToolCall }
  | {
      readonly phase: "end";
      readonly call: ToolCall;
      /** A command's exit status, when the backend reports it. */
      readonly exitCode?: number;
      /** The tool reported an error (a refused write, a command that failed). */
      readonly failed: boolean;
    };

export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheCreationTokens: number;
}

/** Every kind of backend failure, for code that checks a kind read from a file. */
export const BACKEND_ERROR_KINDS = [
  "rate_limit",
  "overloaded",
  "server_error",
  "timeout",
  "connection",
  "session_expired",
  "auth",
  "max_turns",
  "max_budget",
  "aborted",
  "crash",
  "config",
  "unknown",
] as const;

export type BackendErrorKind = (typeof BACKEND_ERROR_KINDS)[number];

/** A backend failure as fields; retries read these, never the message text. */
export interface BackendError {
  readonly kind: BackendErrorKind;
  readonly message: string;
  /** Repeat the same iteration after waiting; does not count against the work. */
  readonly retryable: boolean;
  /** When the backend said how long to wait (e.g. a rate-limit reset time). */
  readonly retryAfterMs?: number;
}

export interface BackendResponse {
  /** Schema-checked structured output, when the backend produced one. */
  readonly structuredOutput?: unknown;
  /** Final assistant text. */
  readonly text: string;
  readonly sessionId?: string;
  /** Usage of this query alone (not cumulative). */
  readonly usage?: Usage;
  /** Cost of this query alone, in USD. */
  readonly costUsd: number;
  readonly durationMs: number;
  /** Names of the tools the model used, in order. */
  readonly toolsUsed: readonly string[];
  /** Raw messages or lines, kept in the run record as the transcript. */
  readonly transcript: readonly unknown[];
  /**
   * GitHub commands the model tried and the backend refused
   * (docs/worktrees-and-github.md#github-boundary), e.g. `gh issue close 7`.
   */
  readonly boundaryAttempts?: readonly string[];
  /**
   * Processes the model started that left its process group and still ran when the query ended
   * (docs/loop.md#left-running); closer did not stop them.
   */
  readonly leftRunning?: readonly LeftRunningProcess[];
  readonly error?: BackendError;
}

/** A process that outlived the query outside its process group: its id and command line. */
export interface LeftRunningProcess {
  readonly pid: number;
  readonly command: string;
}

export interface Backend {
  readonly name: string;
  /**
   * Whether the backend makes the model answer in the request's schema itself. Without it closer
   * appends the schema to the prompt (docs/backends.md#schema-instructions).
   */
  readonly enforcesSchema: boolean;
  query(request: BackendRequest): Promise<BackendResponse>;
}
