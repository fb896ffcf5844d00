import { unpricedModelWarnings } from "../backends/pricing.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { ProblemCollector } from "./problem.js";

/** A cost budget closer cannot enforce, because it knows no price for a model (docs/backends.md#cost). */
export function lintCostBudget(agent: ResolvedAgent, problems: ProblemCollector): void {
  for (const message of unpricedModelWarnings(agent)) {
    problems.warning(
      { file: agent.files.agentJson, jsonPath: "runner.budgets.maxCostUsd" },
      message,
      "add runner.backend.pricing {inputPerMTok, outputPerMTok} for the model, or drop maxCostUsd",
    );
  }
}
