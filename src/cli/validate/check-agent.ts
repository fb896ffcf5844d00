import { readAgent } from "../../definition/load-agent.js";
import { checkPrompts } from "./check-prompts.js";
import {
  checkCustomModules,
  checkParameterNames,
  checkPathWords,
  checkPatternParams,
  checkTargets,
} from "./check-references.js";
import { checkSchemas } from "./check-schemas.js";
import { makeProblemCollector, type Problem } from "./problem.js";

/** The outcome of validating one agent. */
export interface AgentReport {
  readonly name: string;
  /** No errors (warnings allowed). */
  readonly valid: boolean;
  readonly problems: readonly Problem[];
  /** Counts for the ✓ line, when the definition loaded. */
  readonly counts?: { steps: number; completionSteps: number; validators: number };
}

/**
 * Every static check of `closer validate` on one agent: the loader's own checks first, then,
 * whenever both files are well-formed, references, prompts and schemas. Collects every problem.
 */
export async function checkAgent(name: string, cwd: string): Promise<AgentReport> {
  const problems = makeProblemCollector(name, cwd);
  const reading = await readAgent(name, cwd);
  for (const problem of reading.problems) problems.addError(problem, { file: `.agent/${name}` });
  const { agent } = reading;
  if (agent === undefined) return { name, valid: false, problems: problems.problems };
  checkParameterNames(agent, problems);
  checkPathWords(agent, problems);
  checkTargets(agent, problems);
  checkPatternParams(agent, problems);
  await checkCustomModules(agent, problems);
  await checkSchemas(agent, problems);
  await checkPrompts(agent, problems);
  const { registry } = agent;
  return {
    name,
    valid: !problems.problems.some((problem) => problem.severity === "error"),
    problems: problems.problems,
    counts: {
      steps: Object.keys(registry.steps).length,
      completionSteps: Object.keys(registry.completionSteps).length,
      validators: Object.keys(registry.validators).length,
    },
  };
}
