/**
 * closer as a library: load an agent, run it on a task until the work is
 * verifiably done.
 *
 * ```ts
 * import { loadAgent, runTask } from "closer";
 * const agent = await loadAgent("iterator", { cwd });
 * const outcome = await runTask({ agent, cwd, task: { kind: "text", title, body } });
 * ```
 *
 * Each takes `plugins` (docs/plugins.md): hooks at the loop's seams and ports that replace
 * the loop's own (a mock validator, a prompt resolver, a logger, an extra record sink).
 *
 * `runTask`, `runIssue` and `resumeRun` add the worktree, the locks, the
 * definition snapshot (docs/integrity.md) and the GitHub side effects around
 * the loop; `runAgent(await resolveRunSettings(…))` is the loop alone.
 */

export type {
  ClaudeSdkBackendConfig,
  ClaudeSdkBackendOptions,
} from "./backends/claude-sdk/claude-sdk.js";
export { makeClaudeSdkBackend } from "./backends/claude-sdk/claude-sdk.js";
export { type MakeBackendOptions, makeBackend } from "./backends/make-backend.js";
export { makeReplayBackend } from "./backends/replay/replay.js";
export { type AgentListing, listAgents, loadAgent } from "./definition/load-agent.js";
export { SchemaResolver } from "./definition/schema-resolver.js";
export {
  CloserError,
  type CloserErrorCode,
  CloserErrorList,
  type GithubAnswer,
  GithubError,
  isCloserError,
} from "./errors.js";
export {
  type AgentReport,
  assertAgentValid,
  formatProblem,
  lintAgent,
  lintAgentFolder,
  type Problem,
} from "./lint/index.js";
export {
  type AgentResult,
  type Declaration,
  type RunSettings,
  runAgent,
} from "./loop/index.js";
export * from "./plugins/index.js";
export type * from "./ports/agent.js";
export type * from "./ports/backend.js";
export type { ExternalCondition } from "./ports/declaration.js";
export type {
  DecisionSource,
  EventListener,
  RunEvent,
  RunEventOf,
  RunEventType,
  TerminalStatus,
} from "./ports/events.js";
export type * from "./ports/github.js";
export type * from "./ports/loop-ports.js";
export type {
  PromptRenderer,
  PromptRequest,
  RenderedPrompt,
  RetryPrompt,
  RetryPromptRequest,
} from "./ports/prompts.js";
export type * from "./ports/registry.js";
export type { IterationSummary, RunState, TaskInfo } from "./ports/run-state.js";
export type * from "./ports/runner-config.js";
export type * from "./ports/validator.js";
export { createRunRecord, defaultRunsDir, readRunState } from "./record/run-record.js";
export {
  AgentRunner,
  type AgentRunOptions,
  type BatchRunOptions,
  type IssueRunOptions,
  makeSystemClock,
  type RunOutcome,
  resolveRunSettings,
  resumeRun,
  runBatch,
  runIssue,
  runTask,
  type TaskRunOptions,
} from "./run/index.js";
