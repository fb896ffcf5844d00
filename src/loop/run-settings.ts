import type { Declaration, ExternalCondition } from "../ports/declaration.js";
import type { AgentResult } from "../ports/run-result.js";

export type { Declaration };

import type { ResolvedAgent } from "../ports/agent.js";
import type { Backend } from "../ports/backend.js";
import type { EventListener, RunEventBody } from "../ports/events.js";
import type { ProtectedSet } from "../ports/files.js";
import type { Clock, LoopPorts, RecordSink } from "../ports/loop-ports.js";
import type { Plugin } from "../ports/plugin.js";
import type { ChildEnvironments } from "../ports/process.js";
import type { DefinitionStamp, RunState, TaskInfo } from "../ports/run-state.js";
import type { BackendConfig } from "../ports/runner-config.js";
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
