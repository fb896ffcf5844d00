import { CloserError } from "../errors.js";
import type { RunState } from "../ports/run-state.js";
import { runFilePath } from "../record/run-folder-reader.js";

/**
 * The statuses of a run that was interrupted rather than ended: still `running` (its process
 * crashed or its worker was lost), `aborted` by a signal, or stopped by an `error`. Such a run
 * is resumed; every other status is an end the run reached itself (docs/record.md#resume).
 */
const INTERRUPTED: ReadonlySet<string> = new Set(["running", "aborted", "error"]);

/**
 * Whether a run's status (or a job result's, where `skipped` means nothing was to be done) is
 * an end no resume may reopen: a verdict (`completed`, `blocked`, `retries_exhausted`) or a
 * budget spent (`max_iterations`, `budget_exhausted`).
 */
export function hasEnded(status: string): boolean {
  return !INTERRUPTED.has(status);
}

/**
 * Refuses to resume a run that ended on its own (docs/record.md#resume), so no resume gives it
 * more iterations, cost or time than its budgets. `completed` is left to the completed run's
 * own rule (its side effects may still be finished). A run out of iterations resumes only when
 * the resuming agent's cap (`--max-iterations`) is above the iterations it already had.
 */
export function refuseEndedRun(state: RunState, runDir: string, maxIterations: number): void {
  if (!hasEnded(state.status) || state.status === "completed") return;
  if (state.status === "max_iterations" && maxIterations > state.iteration) return;
  const reason = state.reason.split("\n")[0] ?? "";
  const raise =
    state.status === "max_iterations"
      ? `, or give it more iterations: closer run ${state.agent} --resume ${state.runId} --max-iterations ${state.iteration + 1} (or more)`
      : "";
  throw new CloserError(
    "usage_error",
    `run ${state.runId} already ended: ${state.status} (${reason}) — a run that ended is not resumed`,
    {
      file: runFilePath(runDir, "state"),
      jsonPath: "status",
      found: state.status,
      fix: `start a new run: ${newRunCommand(state)}${raise}; how this one ended: closer report ${state.runId}`,
    },
  );
}

/** The command that starts a new run of the same work. */
function newRunCommand(state: RunState): string {
  const { task } = state;
  if (task.kind === "issue" && task.issueNumber !== undefined) {
    return `closer run ${state.agent} --issue ${task.issueNumber}`;
  }
  return `closer run ${state.agent} --task TEXT or --task-file FILE (its task: ${JSON.stringify(task.title)})`;
}
