import { readAgent } from "../definition/load-agent.js";
import { type AgentReport, runLints } from "./lint-agent.js";
import { makeProblemCollector } from "./problem.js";

/**
 * Every static check of `closer validate` on `<cwd>/.agent/<name>/`: the loader's own checks
 * first, then, whenever both files are well-formed, those of `lintAgent`. Collects every
 * problem; paths are shown relative to `cwd`.
 */
export async function lintAgentFolder(name: string, cwd: string): Promise<AgentReport> {
  const problems = makeProblemCollector(name, cwd);
  const reading = await readAgent(name, cwd);
  for (const problem of reading.problems) problems.addError(problem, { file: `.agent/${name}` });
  const { agent } = reading;
  if (agent === undefined) return { name, valid: false, problems: problems.problems };
  return runLints(agent, problems);
}
