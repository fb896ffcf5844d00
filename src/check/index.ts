/** Static checks of an agent definition: every problem a run would meet, found before it starts. */
export { assertAgentValid } from "./assert-agent-valid.js";
export { type AgentReport, checkAgent } from "./check-agent.js";
export { checkAgentFolder } from "./check-agent-folder.js";
export { formatProblem, type Problem } from "./problem.js";
