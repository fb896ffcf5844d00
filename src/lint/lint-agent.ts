import { dirname } from "node:path";
import type { ResolvedAgent } from "../ports/agent.js";
import { lintApiKeyEnv } from "./lint-api-key.js";
import { lintBackendPackages } from "./lint-backend-packages.js";
import { lintCostBudget } from "./lint-cost-budget.js";
import { lintDeclarationSchemas } from "./lint-declaration-schemas.js";
import { lintPrompts } from "./lint-prompts.js";
import { lintProviderSettings } from "./lint-provider-settings.js";
import {
  lintCustomModules,
  lintParameterNames,
  lintPathWords,
  lintPatternParams,
  lintTargets,
} from "./lint-references.js";
import { lintLabels, lintPassedNames, lintSystemPrompt } from "./lint-runner.js";
import { lintSchemas } from "./lint-schemas.js";
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
export async function lintAgent(agent: ResolvedAgent): Promise<AgentReport> {
  const problems = makeProblemCollector(agent.name, projectDirOf(agent));
  return runLints(agent, problems);
}

/** Runs the checks, adding to what the collector already holds, and sums up. */
export async function runLints(
  agent: ResolvedAgent,
  problems: ProblemCollector,
): Promise<AgentReport> {
  lintParameterNames(agent, problems);
  lintPathWords(agent, problems);
  lintTargets(agent, problems);
  lintPatternParams(agent, problems);
  lintCostBudget(agent, problems);
  lintApiKeyEnv(agent, problems);
  lintBackendPackages(agent, problems);
  await lintProviderSettings(agent, problems, { env: process.env, project: projectDirOf(agent) });
  lintLabels(agent, problems);
  lintPassedNames(agent, problems);
  await lintSystemPrompt(agent, problems);
  await lintCustomModules(agent, problems);
  await lintSchemas(agent, problems);
  await lintDeclarationSchemas(agent, problems);
  await lintPrompts(agent, problems);
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
