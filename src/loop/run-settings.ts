import type { ResolvedAgent } from "../ports/agent.js";
import type { Declaration, ExternalCondition } from "../ports/declaration.js";
import type { RunEventBody } from "../ports/events.js";
import type { LoopPorts } from "../ports/loop-ports.js";
import type { PluginHost } from "../ports/plugin-host.js";
import type { ChildEnvironments } from "../ports/process.js";
import type { AgentResult } from "../ports/run-result.js";
import type { DefinitionStamp, RunState, SandboxRecord, TaskInfo } from "../ports/run-state.js";
import type { SetupOutcome } from "./setup-outcome.js";

/**
 * Everything `runAgent` works with, already resolved: nothing here has a
 * default the loop fills in (run/'s `resolveRunSettings` is where they are
 * resolved, once).
 */
export interface RunSettings {
  /** The agent, with the command line's overrides applied. */
  readonly agent: ResolvedAgent;
  /**
   * Everything the loop reaches the outside world through, complete: made once per run by
   * run/'s `makeLoopPorts` (closer's adapters, the sandbox, overrides and plugins' ports).
   */
  readonly ports: LoopPorts;
  /** The caller's plugins behind their one host (docs/plugins.md). */
  readonly plugins: PluginHost;
  /** The working tree the agent works in and the checks run in (absolute). */
  readonly workTree: string;
  /**
   * The environment each kind of process that runs the model's code starts
   * from, built once for the run (docs/backends.md#environment): the `environment` event
   * names what they pass.
   */
  readonly environments: ChildEnvironments;
  /** The OS sandbox as run.json keeps it: on with its policy, or off and why; absent: none was set up. */
  readonly sandbox?: SandboxRecord;
  readonly runId: string;
  /** The run's folder; `ports.record` writes into it. */
  readonly runDir: string;
  /** Absolute path of the decision file the agent may write (docs/completion.md#decision-file). */
  readonly decisionPath: string;
  /** The agent's system prompt, read once when the run is set up (absent: none is appended). */
  readonly systemPrompt?: string;
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
  /**
   * The project's setup closer ran in the tree before the run (docs/definition.md#setup):
   * recorded as `setup` events; a failed command ends the run before the baseline.
   */
  readonly setup?: readonly SetupOutcome[];
  /** The worktree the run works in, kept in run.json and the result. */
  readonly worktree?: RunState["worktree"];
  /** Facts of the task that must hold before the run is complete. */
  readonly externalConditions: readonly ExternalCondition[];
  /**
   * Called after the model declared completion and before the checks run
   * (e.g. closer's commit of what the model left uncommitted).
   */
  readonly beforeChecks?: (declaration: Declaration) => Promise<void>;
}

/** A new run, or one picked up from its run.json. */
export type RunStart = NewRun | ResumedRun;

export interface NewRun {
  readonly task: TaskInfo;
  /** Agent parameter values (template variables). */
  readonly args: Readonly<Record<string, unknown>>;
}

export interface ResumedRun {
  /** run.json of the run; a `completed` one is refused unless `finishOnly` (docs/integrity.md#resume). */
  readonly resumed: RunState;
  /**
   * A completed run whose side effects did not all finish: the checks run once more on its
   * recorded commit, with no prompt, and only a verified verdict lets the side effects finish.
   */
  readonly finishOnly?: boolean;
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
