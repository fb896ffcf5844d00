import { emit, type RunContext } from "./run-context.js";
import { stopped, type Terminal } from "./terminal-state.js";

/**
 * What may end the run before the next iteration (docs/loop.md#rule-6): an abort,
 * a spent budget (cost, or wall time counted from when this process started
 * or resumed the run), or the iteration cap. Records the budget state.
 */
export async function checkLimits(run: RunContext): Promise<Terminal | undefined> {
  if (run.signal.aborted) return stopped("aborted", "the run was aborted");
  const { maxCostUsd, maxWallTimeMs } = run.agent.runner.budgets;
  const costUsd = run.state.totals.costUsd;
  const elapsedMs = run.ports.clock.now() - run.startedAtMs;
  const overCost = maxCostUsd !== undefined && costUsd >= maxCostUsd;
  const overTime = maxWallTimeMs !== undefined && elapsedMs >= maxWallTimeMs;
  const exhausted = overCost ? "cost" : overTime ? "time" : undefined;
  emit(run, {
    type: "budget",
    iteration: run.state.iteration,
    costUsd,
    elapsedMs,
    ...(exhausted === undefined ? {} : { exhausted }),
  });
  if (overCost) {
    return stopped(
      "budget_exhausted",
      `cost $${costUsd.toFixed(4)} reached the budget of $${maxCostUsd}`,
    );
  }
  if (overTime) {
    return stopped(
      "budget_exhausted",
      `wall time ${elapsedMs} ms reached the budget of ${maxWallTimeMs} ms`,
    );
  }
  if (run.state.iteration >= run.agent.runner.maxIterations) {
    return stopped(
      "max_iterations",
      `no verified completion within ${run.agent.runner.maxIterations} iterations`,
    );
  }
  return undefined;
}
