/**
 * Everything that happens in a run is one of these events. The run record,
 * the terminal progress and replay all read this one stream.
 * Names are noun-verb; `v` is the event format version.
 */
import type { BackendError, ToolAction, Usage } from "./backend.js";

export const EVENT_FORMAT_VERSION = 1;

export type TerminalStatus =
  | "completed"
  | "max_iterations"
  | "retries_exhausted"
  | "budget_exhausted"
  | "aborted"
  | "blocked"
  | "error";

export type DecisionSource =
  | "structured"
  | "structured-from-text"
  | "file-json"
  | "file-legacy"
  | "marker"
  | "none";

interface EventBase {
  readonly v: typeof EVENT_FORMAT_VERSION;
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly runId: string;
}

export type RunEventBody =
  | {
      type: "run-start";
      agent: string;
      task: string;
      cwd: string;
      maxIterations: number;
      resumed: boolean;
    }
  /** The names (never the values) of the variables each kind of process starts with (docs/backends.md#environment). */
  | { type: "environment"; backend: string[]; validators: string[] }
  /**
   * A command of the project's setup starting (the `index`th of `count`): handed to the
   * run's listener as it happens, never written, since the run folder does not exist yet
   * (docs/observe.md#setup-progress).
   */
  | { type: "setup-start"; command: string; index: number; count: number }
  /**
   * One command of the project's setup, run in the tree before the run started
   * (docs/definition.md#setup); its output bounded like a check's.
   */
  | {
      type: "setup";
      command: string;
      exitCode: number;
      durationMs: number;
      timedOut?: boolean;
      stdout?: string;
      stderr?: string;
    }
  /**
   * Whether the model's processes run in the OS sandbox, and its policy per kind of process,
   * or why they do not (docs/sandbox.md#record).
   */
  | { type: "sandbox"; on: boolean; reason?: string; policy?: Record<string, unknown> }
  /** Writes and connections the sandbox refused a kind's processes (docs/sandbox.md#refusals). */
  | {
      type: "sandbox-refused";
      iteration: number;
      kind: "backend" | "validators";
      refusals: string[];
      validator?: string;
    }
  /** The caller's plugins, with the hooks and ports each supplies (docs/plugins.md#record). */
  | {
      type: "plugins";
      plugins: { name: string; required: boolean; hooks: string[]; ports: string[] }[];
    }
  /** A plugin threw; `where` is `hooks.<name>` or `ports.<name>` (docs/plugins.md#failures). */
  | {
      type: "plugin-error";
      plugin: string;
      where: string;
      message: string;
      /** The run ends for it: a required plugin, or a port whose answer the run needed. */
      endsRun: boolean;
      iteration?: number;
    }
  | { type: "definition-snapshot"; hash: string; files: number }
  | { type: "definition-reloaded"; previousHash: string; hash: string; files: number }
  | { type: "iteration-start"; iteration: number; step: string }
  | {
      type: "prompt";
      iteration: number;
      step: string;
      templatePath: string;
      kind: "step" | "retry" | "format-retry" | "closure-review" | "completion";
      chars: number;
    }
  | {
      type: "backend-start";
      iteration: number;
      backend: string;
      model?: string;
      sessionId?: string;
    }
  | {
      type: "backend-end";
      iteration: number;
      /**
       * Why the query was sent (docs/observe.md#receipts): `initial`, `continuation`,
       * `retry:<pattern>`, `closure-review`, `repeat:<error kind>`. Absent in runs recorded before receipts.
       */
      reason?: string;
      durationMs: number;
      costUsd: number;
      totalCostUsd: number;
      usage?: Usage;
      sessionId?: string;
      hasStructuredOutput: boolean;
      error?: BackendError;
    }
  /**
   * A tool call of the model starting: handed to the run's listener as it happens, never
   * written; the record keeps the `tool-call` its end makes (docs/observe.md#tool-calls).
   */
  | { type: "tool-start"; iteration: number; tool: string; action: ToolAction; target: string }
  /** A tool call of the model that ended, as the backend reported it (docs/observe.md#tool-calls). */
  | {
      type: "tool-call";
      iteration: number;
      tool: string;
      action: ToolAction;
      target: string;
      exitCode?: number;
      failed: boolean;
      durationMs: number;
    }
  | { type: "backend-wait"; iteration: number; reason: string; waitMs: number; attempt: number }
  | {
      type: "completion-signal";
      iteration: number;
      declared: boolean;
      status?: string;
      action?: string;
    }
  | {
      type: "format-check";
      iteration: number;
      valid: boolean;
      error?: string;
      formatRetries: number;
    }
  /**
   * The checks of a declaration start, on this commit and tree (docs/integrity.md#one-commit):
   * the verdict is about them alone. `commit` and `tree` are absent outside git.
   */
  | { type: "checks-start"; iteration: number; checkId: string; commit?: string; tree?: string }
  | { type: "validator-start"; iteration: number; validator: string; command?: string }
  | {
      type: "validator-end";
      iteration: number;
      validator: string;
      valid: boolean;
      pattern?: string;
      exitCode?: number;
      durationMs: number;
      timedOut?: boolean;
      /** The run's abort stopped the check: no verdict, no pattern (docs/loop.md#signals). */
      aborted?: boolean;
      params: Record<string, unknown>;
      stdout?: string;
      stderr?: string;
      configError?: string;
      /** The check passed only on a re-run (docs/completion.md#flaky-checks). */
      flaky?: { failures: number; reruns: number };
      /** The outcome recorded on the same tree earlier in the run; nothing ran (docs/completion.md#cached-verdicts). */
      cached?: boolean;
    }
  /**
   * The baseline's checks starting on the untouched tree: handed to the run's listener,
   * never written; the record keeps the `baseline` they end with (docs/observe.md#live-view).
   */
  | { type: "baseline-start"; validators: string[] }
  | {
      type: "baseline";
      /**
       * `tests`: how many tests a test validator's run counted (its runner's summary, else
       * the tests it names); `testRunner` instead when its output does not tell how many.
       */
      checks: {
        validator: string;
        valid: boolean;
        durationMs: number;
        tests?: number;
        testRunner?: string;
      }[];
      dirtyFiles: string[];
      protectedFiles: number;
      durationMs: number;
    }
  | {
      type: "guard";
      iteration: number;
      guard:
        | "protected-changed"
        | "tests-removed"
        | "git-config-changed"
        | "sandbox-refused"
        | "tree-changed";
      valid: boolean;
      detail?: string;
      params?: Record<string, unknown>;
    }
  | {
      type: "declaration-refuted";
      iteration: number;
      /** The model's own summary of the work it declared done. */
      claimed: string;
      /** The check that refuted it, its pattern and what it found. */
      failed: string;
      pattern: string;
      detail: string;
      /** What the model reported about the checks that failed (docs/completion.md#claims). */
      claims?: string[];
      refutedDeclarations: number;
    }
  | {
      type: "closure-review";
      iteration: number;
      allComplete: boolean;
      pendingActions: string[];
      /** `fresh`: the reviewer had none of the worker's history. */
      session: "fresh" | "worker";
      costUsd: number;
      durationMs: number;
      /** Files the review itself changed (its answer then does not count). */
      changedFiles?: string[];
    }
  | {
      type: "decision";
      iteration: number;
      checkId: string;
      source: DecisionSource;
      decision: "complete" | "incomplete" | "blocked" | "undecidable";
      checkIdMatch?: boolean;
      stale?: boolean;
      reason?: string;
      /** For `blocked`: the model's reason (docs/completion.md#blocked). */
      blockedReason?: string;
      undecidableStreak: number;
      /**
       * The decision file as read before and after the query, when one was there: what a
       * replay reads back (docs/replay.md#replay).
       */
      decisionFile?: { before?: RecordedFile; after?: RecordedFile };
    }
  | {
      type: "retry-select";
      iteration: number;
      pattern: string;
      templatePath: string;
      attempt: number;
      maxAttempts: number;
    }
  | {
      type: "budget";
      iteration: number;
      costUsd: number;
      elapsedMs: number;
      exhausted?: "cost" | "time";
    }
  | { type: "warning"; message: string; iteration?: number }
  /** The run's abort signal fired (docs/loop.md#signals); `signal` names the process signal behind it. */
  | { type: "abort"; iteration: number; signal?: string }
  | { type: "boundary-attempt"; iteration: number; command: string; backend: string }
  | { type: "side-effect"; action: string; target: string; ok: boolean; detail?: string }
  /**
   * A hook of the user's that a git operation of closer's would have run
   * (docs/worktrees-and-github.md#git-hooks): run by closer without credentials (in the
   * validators' sandbox when it is on), or skipped.
   */
  | {
      type: "git-hook";
      hook: string;
      operation: string;
      ran: boolean;
      sandboxed: boolean;
      exitCode?: number;
      detail?: string;
    }
  | {
      type: "run-end";
      status: TerminalStatus;
      success: boolean;
      reason: string;
      iterations: number;
      costUsd: number;
    };

export type RunEventType = RunEventBody["type"];

/**
 * The events the run's listener hears as they happen and the record never keeps: what is
 * under way, whose end is written (docs/observe.md#live-view).
 */
export const HEARD_ONLY_EVENTS: ReadonlySet<RunEventType> = new Set([
  "setup-start",
  "baseline-start",
  "tool-start",
]);

export type RunEvent = EventBase & RunEventBody;

export type RunEventOf<T extends RunEventType> = EventBase & Extract<RunEventBody, { type: T }>;

/** Subscribers (progress display, tests) get every event as it is recorded. */
export type EventListener = (event: RunEvent) => void;

/** A file as closer read it, kept in an event: its text (cut like every stored text) and time. */
export interface RecordedFile {
  readonly text: string;
  readonly modifiedAtMs: number;
  readonly refused?: { readonly reason: string; readonly detail: string };
}
