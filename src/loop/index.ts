export { runAgent } from "./run-agent.js";
export type {
  AgentResult,
  Declaration,
  DefinitionStart,
  FinishRecord,
  FinishRun,
  NewRun,
  PortOverrides,
  ResumedRun,
  RunSettings,
  RunStart,
} from "./run-settings.js";
