import type { Usage } from "./backend.js";
import type { Baseline } from "./baseline.js";
import type { TerminalStatus } from "./events.js";
import type { CostByReason } from "./receipt-reason.js";

/** The format run.json is written in; 2 added `definition`. */
export const RUN_STATE_VERSION = 2;

/** The formats `readRunState` reads: 1 (before definition snapshots) and the current one. */
export type RunStateVersion = 1 | typeof RUN_STATE_VERSION;

/** The run's definition snapshot (docs/integrity.md#definition-snapshot). */
export interface DefinitionStamp {
  /** sha256 (hex) over the snapshot's relative paths and contents. */
  readonly hash: string;
  /** How many files it holds. */
  readonly files: number;
}

/** A retry prompt already rendered, waiting to be sent (kept so a resumed run sends it). */
export interface PendingPrompt {
  readonly text: string;
  readonly kind: "retry" | "format-retry";
  readonly pattern: string;
  readonly templatePath: string;
  /** Check id of the iteration that sends it (the prompt may name it as `checkId`). */
  readonly checkId?: string;
}

/** What the model said last and what the harness found: carried into the next prompt. */
export interface IterationSummary {
  readonly iteration: number;
  readonly status?: string;
  readonly nextAction?: string;
  readonly reason?: string;
  readonly summary?: string;
  readonly toolsUsed: readonly string[];
  readonly errors: readonly string[];
  /** Which check failed and why, when one did. */
  readonly failedCheck?: {
    readonly validator: string;
    readonly pattern: string;
    readonly detail: string;
  };
  /** What the model reported about checks that failed (docs/completion.md#claims), one line each. */
  readonly refutedClaims?: readonly string[];
}

export interface TaskInfo {
  readonly kind: "text" | "issue";
  readonly title: string;
  readonly body: string;
  readonly url?: string;
  readonly issueNumber?: number;
  /** An issue's label names. */
  readonly labels?: readonly string[];
  /** An issue's comments, oldest first. */
  readonly comments?: readonly { readonly author: string; readonly body: string }[];
}

/** run.json: enough to say where a run stopped and to resume it. */
export interface RunState {
  readonly version: RunStateVersion;
  readonly runId: string;
  readonly agent: string;
  /** The definition snapshot the run works from; absent in runs without one (format 1, the bare loop). */
  readonly definition?: DefinitionStamp;
  readonly task: TaskInfo;
  /** Agent parameters as given (strings from the CLI, typed values from the library). */
  readonly args: Readonly<Record<string, unknown>>;
  readonly cwd: string;
  readonly status: "running" | TerminalStatus;
  readonly reason: string;
  /** Iterations finished so far (a backend query counts once it was sent). */
  readonly iteration: number;
  readonly stepId: string;
  readonly sessionId?: string;
  readonly pendingPrompt?: PendingPrompt;
  readonly previousSummary?: IterationSummary;
  readonly counters: {
    /** Consecutive failed completion checks (against onFailure.maxAttempts). */
    readonly failedChecks: number;
    readonly formatRetries: number;
    readonly undecidableStreak: number;
    /** Declarations the checks refuted, over the whole run (docs/integrity.md#refuted-declarations). */
    readonly refutedDeclarations?: number;
  };
  readonly totals: {
    readonly costUsd: number;
    readonly usage: Usage;
    readonly backendMs: number;
    /** The queries summed by why they were sent (docs/observe.md#receipts); absent in older runs. */
    readonly costByReason?: CostByReason;
  };
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly endedAt?: string;
  readonly worktree?: {
    readonly path: string;
    readonly branch: string;
    readonly baseBranch: string;
  };
  /** Whether the model's processes ran in the OS sandbox, and its policy, or why not (docs/sandbox.md#record). */
  readonly sandbox?: SandboxRecord;
  /** GitHub side effects already performed, so a resumed run never repeats them. */
  readonly sideEffects: readonly string[];
  /**
   * What the verifying iteration reported and which checks passed, kept after
   * a completed run for the side effects that follow it (the completion comment).
   */
  readonly completion?: {
    readonly summary: string;
    readonly checksPassed: readonly string[];
    /**
     * The commit the verifying checks ran on: what closer merges or pushes, and nothing else
     * (docs/integrity.md#one-commit). Absent outside git and in runs recorded before it.
     */
    readonly commit?: string;
  };
  readonly warnings: readonly string[];
  /** The tree as the run found it (docs/integrity.md#baseline); taken before iteration 1. */
  readonly baseline?: Baseline;
  /** Checks that failed, then passed on the unchanged tree (docs/integrity.md#flaky-checks). */
  readonly flaky?: readonly FlakyValidator[];
  /** The closure reviews of the run (docs/completion.md#closure-review). */
  readonly review?: ReviewRecord;
  /**
   * The declaration whose checks are under way, or were when the run stopped: a resumed run
   * runs them again instead of sending a prompt (docs/loop.md#resume-into-checks).
   */
  readonly checking?: CheckingDeclaration;
}

/** A declaration being checked: what the checks and the next summary need of its iteration. */
export interface CheckingDeclaration {
  readonly iteration: number;
  readonly checkId: string;
  readonly stepId: string;
  /** What the model answered: its structured output, the start of its text, the tools it used. */
  readonly response: {
    readonly structuredOutput?: unknown;
    readonly text: string;
    readonly toolsUsed: readonly string[];
  };
  /** The commit HEAD named when the checks started (docs/integrity.md#one-commit); absent outside git. */
  readonly commit?: string;
  /** The working tree's fingerprint when the checks started; the verdict holds only for that tree. */
  readonly tree?: string;
}

/** What the closure reviews cost and found. */
export interface ReviewRecord {
  /** Reviews that rejected the work, over the whole run. */
  readonly rejections: number;
  readonly costUsd: number;
  readonly durationMs: number;
  /** The findings of the last review that rejected the work. */
  readonly last?: ReviewFindings;
}

/** What a review asked for, and the checklist items it found not done with their evidence. */
export interface ReviewFindings {
  readonly pendingActions: readonly string[];
  readonly checklist: readonly string[];
}

export interface FlakyValidator {
  readonly iteration: number;
  readonly validator: string;
}

/** The OS sandbox of a run as the record keeps it (docs/sandbox.md#record). */
export interface SandboxRecord {
  readonly on: boolean;
  /** Why it is off. */
  readonly reason?: string;
  /** Per kind of process (backend, validators): where it may write, what it may not read, which hosts. */
  readonly policy?: Readonly<Record<string, unknown>>;
  /** Writes and connections it refused, over the whole run. */
  readonly refusals?: number;
}
