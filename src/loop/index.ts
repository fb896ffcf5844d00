export { runAgent } from "./run-agent.js";
export type {
  AgentResult,
  Declaration,
  DefinitionStart,
  FinishRecord,
  FinishRun,
  NewRun,
  ResumedRun,
  RunSettings,
  RunStart,
} from "./run-settings.js";
