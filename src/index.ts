/**
 * closer as a library: load an agent, run it on a task until the work is
 * verifiably done.
 *
 * ```ts
 * import { loadAgent, runTask } from "closer-agent";
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
 *
 * What is exported is listed name by name: what a caller of the library needs
 * (docs/architecture.md#public-surface); the rest of src/ is closer's own.
 */

export type {
  ClaudeSdkBackendConfig,
  ClaudeSdkBackendOptions,
} from "./backends/claude-sdk/claude-sdk.js";
export { makeClaudeSdkBackend } from "./backends/claude-sdk/claude-sdk.js";
export { type MakeBackendOptions, makeBackend } from "./backends/make-backend.js";
export { makeReplayBackend } from "./backends/replay/replay.js";
export { applyCliOverrides, type CliOverrideFlags } from "./definition/apply-cli-overrides.js";
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
export { type RunSettings, runAgent } from "./loop/index.js";
export * from "./plugins/index.js";
export type { CliOverrides, ParameterDefinition, ResolvedAgent } from "./ports/agent.js";
export type {
  Backend,
  BackendError,
  BackendErrorKind,
  BackendRequest,
  BackendResponse,
  ToolAction,
  ToolActivity,
  ToolCall,
  Usage,
} from "./ports/backend.js";
export type { Declaration, ExternalCondition } from "./ports/declaration.js";
export type {
  DecisionSource,
  EventListener,
  RunEvent,
  RunEventOf,
  RunEventType,
  TerminalStatus,
} from "./ports/events.js";
export { HEARD_ONLY_EVENTS } from "./ports/events.js";
export type { GithubClient } from "./ports/github.js";
export type { Clock, LoopPorts, RecordSink } from "./ports/loop-ports.js";
export type { PluginHost } from "./ports/plugin-host.js";
export type {
  PromptRenderer,
  PromptRequest,
  RenderedPrompt,
  RetryPrompt,
  RetryPromptRequest,
} from "./ports/prompts.js";
export type {
  CompletionStepDefinition,
  OutputSchemaRef,
  PatternDefinition,
  Registry,
  StepDefinition,
  ValidatorDefinition,
} from "./ports/registry.js";
export type { AgentResult } from "./ports/run-result.js";
export type { IterationSummary, RunState, TaskInfo } from "./ports/run-state.js";
export type {
  BackendConfig,
  BackendKind,
  JsonSchema,
  RunnerConfig,
} from "./ports/runner-config.js";
export type { CheckContext, ValidatorOutcome, ValidatorRunner } from "./ports/validator.js";
export { createRunRecord, defaultRunsDir, readRunState } from "./record/run-record.js";
export {
  AgentRunner,
  type AgentRunOptions,
  type BatchResult,
  type BatchRunOptions,
  type Environment,
  type GithubRunOptions,
  type IssueRunOptions,
  makeSystemClock,
  type ResumeRunOptions,
  type RunBaseOptions,
  type RunOutcome,
  resolveRunSettings,
  resumeRun,
  runBatch,
  runIssue,
  runTask,
  type TaskRunOptions,
} from "./run/index.js";
