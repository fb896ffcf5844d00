import type { ExternalCondition } from "../completion/is-complete.js";
import type { ResolvedAgent } from "../definition/types.js";
import type { CloserErrorCode } from "../errors.js";
import type { EventListener, TerminalStatus } from "../events.js";
import type { Backend, Clock } from "../ports.js";
import type { RunState, TaskInfo } from "../record/run-state.js";

/** What `runAgent` needs: the resolved agent, a backend, the working tree and the task. */
export interface RunOptions {
  readonly agent: ResolvedAgent;
  readonly backend: Backend;
  /** The working tree the agent works in and the checks run in. */
  readonly cwd: string;
  /** Required for a new run; a resumed run keeps its own. */
  readonly task?: TaskInfo;
  /** Agent parameter values (template variables). */
  readonly args?: Readonly<Record<string, unknown>>;
  /** Overrides agent.json's `runner.maxIterations`. */
  readonly maxIterations?: number;
  /** Where run folders go; default agent.json's `logging.runsDir`, else `<git dir>/closer/runs`. */
  readonly runsDir?: string;
  /** Id of a new run; default `<UTC date>-<time>-<random>`. */
  readonly runId?: string;
  /** Id of a run to resume from its run.json (its pending prompt, step and session). */
  readonly resume?: string;
  /** Time, waits and ids; default the system clock. */
  readonly clock?: Clock;
  /** Aborting ends the run with status `aborted` (the backend query and validators are stopped). */
  readonly signal?: AbortSignal;
  /** Gets every event as it is recorded (progress display, tests). */
  readonly onEvent?: EventListener;
  /** Facts of the task that must hold before the run is complete (SPEC §4.6). */
  readonly externalConditions?: readonly ExternalCondition[];
  /** closer's own environment: its secrets are redacted from the record. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The worktree the run works in, kept in run.json and the result. */
  readonly worktree?: RunState["worktree"];
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
  readonly worktree?: RunState["worktree"];
  /** For status `error`: the kind of error, so a CLI can choose its exit code. */
  readonly errorCode?: CloserErrorCode;
  /** Warnings of the run (a skipped failed check, format retries exhausted). */
  readonly warnings: readonly string[];
}
