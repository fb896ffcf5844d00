/** Static checks of an agent definition: every problem a run would meet, found before it starts. */
export { assertAgentValid } from "./assert-agent-valid.js";
export { type AgentReport, lintAgent } from "./lint-agent.js";
export { lintAgentFolder } from "./lint-agent-folder.js";
export { formatProblem, type Problem } from "./problem.js";
