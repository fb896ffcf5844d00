import { dirname } from "node:path";
import type { ResolvedAgent } from "../ports/agent.js";
import { checkApiKeyEnv } from "./check-api-key.js";
import { checkCostBudget } from "./check-cost-budget.js";
import { checkPrompts } from "./check-prompts.js";
import {
  checkCustomModules,
  checkParameterNames,
  checkPathWords,
  checkPatternParams,
  checkTargets,
} from "./check-references.js";
import { checkLabels, checkPassedNames, checkSystemPrompt } from "./check-runner.js";
import { checkSchemas } from "./check-schemas.js";
import { makeProblemCollector, type Problem, type ProblemCollector } from "./problem.js";

/** The outcome of checking one agent. */
export interface AgentReport {
  readonly name: string;
  /** No errors (warnings allowed). */
  readonly valid: boolean;
  readonly problems: readonly Problem[];
  /** Counts for the ✓ line, when the definition loaded. */
  readonly counts?: { steps: number; completionSteps: number; validators: number };
}

/**
 * Every static check of a loaded agent, before any model call: references, prompts and schemas.
 * The definition files are not read again; the prompt templates, schemas and custom validator
 * modules they name are. Collects every problem; paths are shown relative to the project folder
 * that holds `.agent/`.
 */
export async function checkAgent(agent: ResolvedAgent): Promise<AgentReport> {
  const problems = makeProblemCollector(agent.name, projectDirOf(agent));
  return runChecks(agent, problems);
}

/** Runs the checks, adding to what the collector already holds, and sums up. */
export async function runChecks(
  agent: ResolvedAgent,
  problems: ProblemCollector,
): Promise<AgentReport> {
  checkParameterNames(agent, problems);
  checkPathWords(agent, problems);
  checkTargets(agent, problems);
  checkPatternParams(agent, problems);
  checkCostBudget(agent, problems);
  checkApiKeyEnv(agent, problems);
  checkLabels(agent, problems);
  checkPassedNames(agent, problems);
  await checkSystemPrompt(agent, problems);
  await checkCustomModules(agent, problems);
  await checkSchemas(agent, problems);
  await checkPrompts(agent, problems);
  const { registry } = agent;
  return {
    name: agent.name,
    valid: !problems.problems.some((problem) => problem.severity === "error"),
    problems: problems.problems,
    counts: {
      steps: Object.keys(registry.steps).length,
      completionSteps: Object.keys(registry.completionSteps).length,
      validators: Object.keys(registry.validators).length,
    },
  };
}

/** An agent lives in `<project>/.agent/<name>/`. */
function projectDirOf(agent: ResolvedAgent): string {
  return dirname(dirname(agent.dir));
}
