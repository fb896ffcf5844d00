export { makeRunId } from "./prepare-run.js";
export { AgentRunner, runAgent } from "./run-agent.js";
export type { AgentResult, RunOptions } from "./run-options.js";
export { makeSystemClock } from "./system-clock.js";
