import type { CloserErrorCode } from "../errors.js";
import type { TerminalStatus } from "./events.js";
import type { CostByReason } from "./receipt-reason.js";
import type { FlakyValidator, ReviewFindings, RunState, SandboxRecord } from "./run-state.js";

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
