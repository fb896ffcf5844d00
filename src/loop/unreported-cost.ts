import type { BackendResponse } from "../ports/backend.js";
import { type RunContext, warn } from "./run-context.js";

/**
 * A command program that answered without a cost while the agent has a cost
 * budget: the budget cannot hold it, and the run says so once
 * (docs/backends.md#command-usage). Tokens without a price count as no cost.
 */
export function warnOfUnreportedCost(
  run: RunContext,
  iteration: number,
  response: BackendResponse,
): void {
  const { backend, budgets } = run.agent.runner;
  if (backend.kind !== "command" || budgets.maxCostUsd === undefined) return;
  if (response.error !== undefined || response.costUsd > 0) return;
  const usage = response.usage;
  const tokens = usage && usage.inputTokens + usage.outputTokens + usage.cacheReadTokens;
  if (tokens === 0) return;
  const message =
    usage === undefined
      ? "runner.budgets.maxCostUsd cannot be enforced: the command program reported no cost (print a usage line with costUsd, docs/backends.md#command-usage)"
      : "runner.budgets.maxCostUsd cannot be enforced: the command program reported tokens without a cost and closer knows no price for them (report costUsd, or set runner.backend.pricing)";
  if (run.state.warnings.includes(message)) return;
  warn(run, iteration, message);
}
