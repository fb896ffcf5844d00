export type { Declaration } from "../ports/declaration.js";
export type { AgentResult } from "../ports/run-result.js";
export { runAgent } from "./run-agent.js";
export type {
  DefinitionStart,
  FinishRecord,
  FinishRun,
  NewRun,
  ResumedRun,
  RunSettings,
  RunStart,
} from "./run-settings.js";
export { type SetupOutcome, setupFailure } from "./setup-outcome.js";
