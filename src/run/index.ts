/** Runs around the loop: a written task, a GitHub issue, a batch of issues, a resumed run. */
export { AgentRunner } from "./agent-runner.js";
export { type BranchWork, commitMessage, makeBranchWork } from "./branch-conditions.js";
export {
  type DeliveredRun,
  type DeliveredRunEnd,
  finishDeliveredRun,
} from "./delivered-earlier.js";
export { hasEnded } from "./ended-run.js";
export { EXIT_CODES, exitCodeOfError, exitCodeOfOutcome, exitCodeOfSignal } from "./exit-code.js";
export { makeIssueTask } from "./issue-task.js";
export { type AgentRunOptions, resolveRunSettings } from "./make-run-settings.js";
export { describeOutcome, formatBatchTable, outcomeJson } from "./outcome-report.js";
export { type ResumeRunOptions, resumeRun } from "./resume-run.js";
export { makeRunId } from "./run-base.js";
export {
  type BatchResult,
  type BatchRunOptions,
  DEFAULT_CONCURRENCY,
  runBatch,
} from "./run-batch.js";
export { type IssueRunOptions, runIssue } from "./run-issue.js";
export type {
  Environment,
  GithubRunOptions,
  RunBaseOptions,
  RunOutcome,
  Serializer,
  SideEffectsReport,
  WorktreeEnd,
} from "./run-options.js";
export { makeSerializer, runPool } from "./run-pool.js";
export { makeRunStatusReader } from "./run-status-reader.js";
export { runTask, type TaskRunOptions } from "./run-task.js";
export { makeSystemClock } from "./system-clock.js";
export { parseTaskText, readTaskFile, taskFromText } from "./task-file.js";
