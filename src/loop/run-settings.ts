import type { Declaration, ExternalCondition } from "../completion/is-complete.js";

export type { Declaration };

import type { BackendConfig, ResolvedAgent } from "../definition/types.js";
import type { CloserErrorCode } from "../errors.js";
import type { EventListener, RunEventBody, TerminalStatus } from "../events.js";
import type { ProtectedSet } from "../integrity/protected-files.js";
import type { Plugin } from "../plugins/plugin.js";
import type { Backend, Clock, LoopPorts, RecordSink } from "../ports.js";
import type { ChildEnvironments } from "../process/child-environment.js";
import type { CostByReason } from "../record/receipt-reason.js";
import type {
  DefinitionStamp,
  FlakyValidator,
  ReviewFindings,
  RunState,
  SandboxRecord,
  TaskInfo,
} from "../record/run-state.js";
import type { SandboxState } from "../sandbox/run-sandbox.js";

/**
 * Everything `runAgent` works with, already resolved: nothing here has a
 * default the loop fills in (run/'s `resolveRunSettings` is where they are
 * resolved, once).
 */
export interface RunSettings {
  /** The agent, with the command line's overrides applied. */
  readonly agent: ResolvedAgent;
  readonly backend: Backend;
  /** Makes the backend a closure review names, on first use; without it the run's backend reviews. */
  readonly reviewBackend?: (config: BackendConfig) => Promise<Backend>;
  /** The working tree the agent works in and the checks run in (absolute). */
  readonly cwd: string;
  /**
   * The environment each kind of process that runs the model's code starts
   * from, built once for the run (docs/backends.md#environment); the backend
   * was made with its own.
   */
  readonly environments: ChildEnvironments;
  /**
   * The OS sandbox of the processes that run the model's code (docs/sandbox.md), or why there
   * is none; absent: the caller set up none.
   */
  readonly sandbox?: SandboxState;
  readonly clock: Clock;
  readonly runId: string;
  /** The run's folder; `record` writes into it. */
  readonly runDir: string;
  /** Absolute path of the decision file the agent may write (docs/completion.md#decision-file). */
  readonly decisionPath: string;
  /** The run record: every event of the run, the side effects after the loop included. */
  readonly record: RecordSink;
  /** Aborting ends the run with status `aborted` (the backend query and validators are stopped). */
  readonly signal: AbortSignal;
  /** A new run's task, or the state of a run to resume. */
  readonly start: RunStart;
  /**
   * The definition snapshot `agent` was loaded from, kept in run.json and
   * recorded when the run starts (docs/integrity.md#definition-snapshot).
   */
  readonly definition?: DefinitionStart;
  /**
   * Found before the run started (a recovered lock, a changed agent folder):
   * recorded as `warning` events and kept in run.json.
   */
  readonly warnings?: readonly string[];
  /** The worktree the run works in, kept in run.json and the result. */
  readonly worktree?: RunState["worktree"];
  /** The paths the model must not change: the checks' definition (docs/integrity.md#protected-paths). */
  readonly protectedSet: ProtectedSet;
  /** Facts of the task that must hold before the run is complete. */
  readonly externalConditions: readonly ExternalCondition[];
  /** Gets every event as it is recorded (progress display, tests). */
  readonly onEvent?: EventListener;
  /**
   * Called after the model declared completion and before the checks run
   * (e.g. closer's commit of what the model left uncommitted).
   */
  readonly beforeChecks?: (declaration: Declaration) => Promise<void>;
  /**
   * Ports that replace the loop's own (docs/loop.md#port-overrides): how checks run, how the
   * tree is looked at, how the decision file is read, the sandbox. Absent: today's defaults.
   */
  readonly ports?: PortOverrides;
  /** The caller's plugins, called in this order (docs/plugins.md). */
  readonly plugins?: readonly Plugin[];
}

/** The loop's ports a caller may supply instead of the defaults (docs/loop.md#port-overrides). */
export type PortOverrides = Partial<
  Pick<LoopPorts, "runValidator" | "integrity" | "readFile" | "sandbox">
>;

/** A new run, or one picked up from its run.json. */
export type RunStart = NewRun | ResumedRun;

export interface NewRun {
  readonly task: TaskInfo;
  /** Agent parameter values (template variables). */
  readonly args: Readonly<Record<string, unknown>>;
}

export interface ResumedRun {
  /** run.json of the run; a `completed` one is refused (docs/integrity.md#resume). */
  readonly resumed: RunState;
}

/** How this attempt of the run came by its definition snapshot. */
export interface DefinitionStart extends DefinitionStamp {
  /**
   * `taken`: made now, from the agent folder (a new run, or a resumed one that
   * had none); `reloaded`: made now over `previousHash` (`--reload-definition`);
   * `kept`: the resumed run's own, checked against its record.
   */
  readonly how: "taken" | "reloaded" | "kept";
  readonly previousHash?: string;
}

/** How a run ended. `success` is true only for `completed`. */
export interface AgentResult {
  readonly success: boolean;
  readonly status: TerminalStatus;
  readonly reason: string;
  /**
   * Iterations run: one per backend query for the work (retry prompts
   * included); repeats after a rate limit, timeout or expired session and the
   * closure review query are part of the iteration they belong to.
   */
  readonly iterations: number;
  readonly runId: string;
  readonly runDir: string;
  readonly costUsd: number;
  /** The cost, time and tokens of the run's queries by why each was sent (docs/observe.md#receipts). */
  readonly costByReason?: CostByReason;
  readonly worktree?: RunState["worktree"];
  /** For status `error`: the kind of error, so a CLI can choose its exit code. */
  readonly errorCode?: CloserErrorCode;
  /** Warnings of the run (a skipped failed check, format retries exhausted). */
  readonly warnings: readonly string[];
  /** For `completed`: what the verifying iteration reported and which checks passed. */
  readonly completion?: RunState["completion"];
  /** Declarations of completion the checks refuted (docs/integrity.md#refuted-declarations). */
  readonly refutedDeclarations: number;
  /** Checks that failed, then passed on the unchanged tree (docs/integrity.md#flaky-checks). */
  readonly flaky: readonly FlakyValidator[];
  /** Whether the model's processes ran in the OS sandbox (docs/sandbox.md#record). */
  readonly sandbox?: SandboxRecord;
  /** What the closure reviews cost, when one ran (docs/completion.md#closure-review). */
  readonly reviewCostUsd?: number;
  /** For `blocked`: the last review's findings. */
  readonly review?: ReviewFindings;
}

/**
 * What runs after the loop and before the run's end is written (side
 * effects, the worktree's end): it writes through the run's own record.
 */
export type FinishRun<Outcome extends AgentResult> = (
  result: AgentResult,
  record: FinishRecord,
) => Promise<Outcome>;

/** The run record as the steps after the loop see it. */
export interface FinishRecord {
  /** Side effects done by earlier attempts of the run (run.json's `sideEffects`). */
  readonly alreadyDone: readonly string[];
  /** Appends an event; resolves once it is written. */
  emit(body: RunEventBody): Promise<void>;
  /** Adds a done side effect to run.json, so a resumed run never repeats it. */
  recordEffect(effectKey: string): Promise<void>;
}
