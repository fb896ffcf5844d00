/**
 * closer as a library: load an agent, pick a backend, run it on a task until
 * the work is verifiably done.
 *
 * ```ts
 * import { loadAgent, makeBackend, runAgent } from "closer";
 * const agent = await loadAgent("iterator", { cwd });
 * const backend = makeBackend(agent.runner.backend, { agentDir: agent.dir });
 * const result = await runAgent({ agent, backend, cwd, task: { kind: "text", title, body } });
 * ```
 */

export type { ClaudeSdkBackendConfig, ClaudeSdkBackendOptions } from "./backends/claude-sdk.js";
export { makeClaudeSdkBackend } from "./backends/claude-sdk.js";
export { type MakeBackendOptions, makeBackend } from "./backends/make-backend.js";
export { makeReplayBackend } from "./backends/replay.js";
export type { ExternalCondition } from "./completion/is-complete.js";
export { type AgentListing, listAgents, loadAgent } from "./definition/load-agent.js";
export { SchemaResolver } from "./definition/schema-resolver.js";
export type * from "./definition/types.js";
export { CloserError, type CloserErrorCode, CloserErrorList, isCloserError } from "./errors.js";
export type {
  DecisionSource,
  EventListener,
  RunEvent,
  RunEventType,
  TerminalStatus,
} from "./events.js";
export {
  type AgentResult,
  AgentRunner,
  makeSystemClock,
  type RunOptions,
  runAgent,
} from "./loop/index.js";
export type * from "./ports.js";
export { createRunRecord, defaultRunsDir, readRunState } from "./record/run-record.js";
export type { IterationSummary, RunState, TaskInfo } from "./record/run-state.js";
export {
  type BatchRunOptions,
  type IssueRunOptions,
  type RunOutcome,
  resumeRun,
  runBatch,
  runIssue,
  runTask,
  type TaskRunOptions,
} from "./run/index.js";
