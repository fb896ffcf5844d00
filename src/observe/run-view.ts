/**
 * One run as `closer show`, `closer report` and `closer show --json` present it
 * (docs/observe.md#run-view): read from the run folder (run.json, events.jsonl,
 * task.json, baseline.json), never from the working tree.
 */
import type { TerminalStatus } from "../ports/events.js";

export interface RunView {
  readonly runId: string;
  readonly agent: string;
  readonly runDir: string;
  readonly task: TaskView;
  /** `running` for a run whose process is alive or that stopped without an end on record. */
  readonly status: TerminalStatus | "running";
  readonly reason: string;
  readonly startedAt: string;
  readonly endedAt?: string;
  /** From the start to the end (or the last update of a run that did not end). */
  readonly durationMs: number;
  /** Iterations run (docs/loop.md#iterations). */
  readonly iterations: number;
  /** How many times the run was started: 1, plus one per resume. */
  readonly attempts: number;
  readonly costUsd: number;
  readonly usage: TokenUsage;
  readonly worktree?: {
    readonly path: string;
    readonly branch: string;
    readonly baseBranch: string;
  };
  /** The project's setup, one entry per command that ran before the run (docs/observe.md#setup-progress). */
  readonly setup: readonly SetupView[];
  readonly baseline?: BaselineView;
  readonly timeline: readonly IterationView[];
  readonly end: EndView;
  /** Every backend query of the run, in order (docs/observe.md#receipts). */
  readonly receipts: readonly Receipt[];
  /** The receipts summed by their reason, in order of first appearance. */
  readonly costByReason: readonly ReasonTotal[];
}

export interface TaskView {
  readonly kind: "text" | "issue";
  readonly title: string;
  readonly body: string;
  readonly url?: string;
  readonly issueNumber?: number;
}

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheCreationTokens: number;
}

/** One command of the project's setup (docs/definition.md#setup). */
export interface SetupView {
  readonly command: string;
  readonly exitCode: number;
  readonly durationMs: number;
  readonly timedOut?: boolean;
  /** What it printed: its last 64 KiB, whole from its payload files when the event holds it cut. */
  readonly output?: string;
  /** A failed command's meaningful lines (docs/completion.md#quoted-output). */
  readonly quoted?: readonly string[];
}

export interface BaselineView {
  readonly commit?: string;
  readonly checks: readonly {
    readonly validator: string;
    readonly valid: boolean;
    readonly durationMs?: number;
    /** How many tests the check's run counted, from the `baseline` event. */
    readonly tests?: number;
  }[];
  readonly dirtyFiles: readonly string[];
  readonly protectedFiles: number;
  readonly durationMs?: number;
}

export interface IterationView {
  readonly iteration: number;
  readonly step: string;
  /** Which start of the run this iteration belongs to (1 = the first; a resume adds one). */
  readonly attempt: number;
  readonly prompt?: PromptView;
  /** The queries of this iteration: the work, its repeats, the closure review. */
  readonly receipts: readonly Receipt[];
  /** The model's tool calls in the iteration's queries, in order (docs/report.md#report). */
  readonly toolCalls: readonly ToolCallView[];
  readonly declaration?: DeclarationView;
  readonly format?: { readonly valid: boolean; readonly error?: string };
  /** Validators, integrity guards and the closure review, in the order they ran. */
  readonly checks: readonly CheckView[];
  /** The retry the failure chose (docs/retry.md). */
  readonly retry?: RetryView;
  readonly warnings: readonly string[];
}

export interface PromptView {
  readonly kind: "step" | "retry" | "format-retry" | "closure-review" | "completion";
  readonly templatePath: string;
  readonly chars: number;
  /** The prompt as sent, relative to the run folder (`prompts/iteration-003.md`). */
  readonly file: string;
}

/** A tool call of the model, as the record's `tool-call` event tells it. */
export interface ToolCallView {
  /** The backend's own name for the tool: `Write`, `Bash`, `command_execution`. */
  readonly tool: string;
  /** `write`, `edit`, `read`, `command`, `search`, `fetch` or `other`. */
  readonly action: string;
  /** What it acted on: a path, a command line, a pattern; "" when nothing names it. */
  readonly target: string;
  readonly exitCode?: number;
  readonly failed: boolean;
  readonly durationMs?: number;
}

export interface DeclarationView {
  readonly decision: "complete" | "incomplete" | "blocked" | "undecidable";
  /** The decision channel that spoke (docs/completion.md#decision-channels). */
  readonly source: string;
  readonly status?: string;
  readonly reason?: string;
  readonly blockedReason?: string;
  /** The summary the decision file gave, when the declaration came through it (docs/completion.md#decision-file). */
  readonly summary?: string;
  /** What the model reported about checks that failed (docs/completion.md#claims), one line each. */
  readonly refutedClaims?: readonly string[];
}

export interface CheckView {
  readonly kind: "validator" | "guard" | "closure-review";
  readonly name: string;
  readonly valid: boolean;
  readonly pattern?: string;
  readonly durationMs?: number;
  readonly exitCode?: number;
  /** The outcome recorded on the same tree earlier in the run: nothing ran (docs/completion.md#cached-verdicts). */
  readonly cached?: boolean;
  /** What the check found: its output, the guard's detail, the review's pending actions. */
  readonly output?: string;
  /**
   * A failed validator's quote: what it extracted, then its output's meaningful lines — never a
   * package manager's banner (docs/completion.md#quoted-output).
   */
  readonly quoted?: readonly string[];
}

export interface RetryView {
  readonly pattern: string;
  readonly templatePath: string;
  readonly attempt: number;
  readonly maxAttempts: number;
}

/** One backend query and why it happened (docs/observe.md#receipts). */
export interface Receipt {
  readonly iteration: number;
  /**
   * `initial`, `continuation`, `retry:<pattern>` (`retry:format`, `retry:test-failed`, …),
   * `closure-review`, `repeat:<error kind>` (the same query again after a rate limit, …).
   */
  readonly reason: string;
  readonly durationMs: number;
  readonly costUsd: number;
  readonly usage: TokenUsage;
  /** The error kind of a query that failed. */
  readonly error?: string;
}

export interface ReasonTotal {
  readonly reason: string;
  readonly queries: number;
  readonly costUsd: number;
  readonly durationMs: number;
  readonly usage: TokenUsage;
}

export interface EndView {
  readonly status: TerminalStatus | "running";
  readonly reason: string;
  readonly success: boolean;
  readonly sideEffects: readonly {
    readonly action: string;
    readonly target: string;
    readonly ok: boolean;
    readonly detail?: string;
  }[];
  readonly warnings: readonly string[];
  readonly refutedDeclarations: number;
  readonly flaky: readonly { readonly iteration: number; readonly validator: string }[];
}
