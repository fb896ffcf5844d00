import type { ResolvedAgent } from "../ports/agent.js";
import type { StepDefinition } from "../ports/registry.js";

/**
 * The model a step's queries ask for: the step's own, else `runner.backend.model`;
 * undefined leaves the choice to the backend. The one place this default is written.
 */
export function stepModel(
  agent: ResolvedAgent,
  step: Pick<StepDefinition, "model">,
): string | undefined {
  return step.model ?? agent.runner.backend.model;
}
