import type { QueryBudget } from "./query-deadline.js";
import { emit, type RunContext } from "./run-context.js";
import { abortedWhen, stopped, type Terminal } from "./terminal-state.js";

/**
 * What may end the run before the next iteration (docs/loop.md#rule-6): an abort,
 * a spent budget (cost, or wall time counted from when this process started
 * or resumed the run), or the iteration cap. Records the budget state.
 */
export async function checkLimits(run: RunContext): Promise<Terminal | undefined> {
  if (run.signal.aborted) return abortedWhen(run, `before iteration ${run.state.iteration + 1}`);
  const { maxCostUsd, maxWallTimeMs } = run.agent.runner.budgets;
  const costUsd = run.state.totals.costUsd;
  const elapsedMs = elapsedOf(run);
  const overCost = maxCostUsd !== undefined && costUsd >= maxCostUsd;
  const overTime = maxWallTimeMs !== undefined && elapsedMs >= maxWallTimeMs;
  const exhausted = overCost ? "cost" : overTime ? "time" : undefined;
  const spent = recordBudget(run, exhausted);
  if (spent !== undefined) return spent;
  if (run.state.iteration >= run.agent.runner.maxIterations) {
    const within = `no verified completion within ${run.agent.runner.maxIterations} iterations`;
    return stopped("max_iterations", `${within}${lastFailedCheck(run)}`);
  }
  return undefined;
}

/** What the last iteration's failed check found, as the end reason quotes it (docs/completion.md#quoted-output). */
function lastFailedCheck(run: RunContext): string {
  const failed = run.state.previousSummary?.failedCheck;
  return failed === undefined
    ? ""
    : `; last failed: ${failed.validator} (${failed.pattern}): ${failed.detail}`;
}

/** What is left of the budgets for the query about to be sent: it ends the query when spent. */
export function budgetLeft(run: RunContext): QueryBudget {
  const { maxCostUsd, maxWallTimeMs } = run.agent.runner.budgets;
  return {
    ...(maxWallTimeMs === undefined ? {} : { timeLeftMs: maxWallTimeMs - elapsedOf(run) }),
    ...(maxCostUsd === undefined ? {} : { costLeftUsd: maxCostUsd - run.state.totals.costUsd }),
  };
}

/**
 * A budget ended a query under way (docs/loop.md#budgets): the `budget` event, and the end. What
 * the query did so far is already in the record (its transcript, the totals).
 */
export function budgetSpentInQuery(run: RunContext, exhausted: "cost" | "time"): Terminal {
  const spent = recordBudget(run, exhausted);
  if (spent === undefined) throw new Error("a spent budget must end the run");
  return { ...spent, reason: `${spent.reason}; the query under way was stopped` };
}

function elapsedOf(run: RunContext): number {
  return run.ports.clock.now() - run.startedAtMs;
}

/** The `budget` event, and the end when a budget is spent. */
function recordBudget(
  run: RunContext,
  exhausted: "cost" | "time" | undefined,
): Terminal | undefined {
  const { maxCostUsd, maxWallTimeMs } = run.agent.runner.budgets;
  const costUsd = run.state.totals.costUsd;
  // A timer may fire a millisecond before the clock says the budget is spent.
  const elapsedMs =
    exhausted === "time" ? Math.max(elapsedOf(run), maxWallTimeMs ?? 0) : elapsedOf(run);
  emit(run, {
    type: "budget",
    iteration: run.state.iteration,
    costUsd,
    elapsedMs,
    ...(exhausted === undefined ? {} : { exhausted }),
  });
  if (exhausted === "cost") {
    return stopped(
      "budget_exhausted",
      `cost $${costUsd.toFixed(4)} reached the budget of $${maxCostUsd}`,
    );
  }
  if (exhausted === "time") {
    return stopped(
      "budget_exhausted",
      `wall time ${elapsedMs} ms reached the budget of ${maxWallTimeMs} ms`,
    );
  }
  return undefined;
}
