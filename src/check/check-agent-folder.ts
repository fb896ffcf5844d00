import { readAgent } from "../definition/load-agent.js";
import { type AgentReport, runChecks } from "./check-agent.js";
import { makeProblemCollector } from "./problem.js";

/**
 * Every static check of `closer validate` on `<cwd>/.agent/<name>/`: the loader's own checks
 * first, then, whenever both files are well-formed, those of `checkAgent`. Collects every
 * problem; paths are shown relative to `cwd`.
 */
export async function checkAgentFolder(name: string, cwd: string): Promise<AgentReport> {
  const problems = makeProblemCollector(name, cwd);
  const reading = await readAgent(name, cwd);
  for (const problem of reading.problems) problems.addError(problem, { file: `.agent/${name}` });
  const { agent } = reading;
  if (agent === undefined) return { name, valid: false, problems: problems.problems };
  return runChecks(agent, problems);
}
