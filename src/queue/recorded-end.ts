import type { RunState } from "../ports/run-state.js";
import { lastFailedCheck } from "./failed-check.js";

/**
 * The result of a job whose run's record says the run already ended (docs/queue.md#exactly-once):
 * the recorded end, taken as it is. A later attempt never resumes such a run, so it gets no
 * iteration, cost or time beyond its budgets.
 */
export async function recordedEnd(state: RunState, runDir: string) {
  const failedCheck = await lastFailedCheck(runDir);
  const issue = state.task.kind === "issue" ? state.task.issueNumber : undefined;
  return {
    success: state.status === "completed",
    status: state.status,
    reason: `${state.reason} (an earlier attempt of this job ended the run)`,
    iterations: state.iteration,
    runId: state.runId,
    runDir,
    costUsd: state.totals.costUsd,
    ...(issue === undefined ? {} : { issue }),
    resumed: true,
    ...(failedCheck === undefined ? {} : { failedCheck }),
  };
}
