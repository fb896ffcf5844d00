import { type CompletionCheck, judgeOutcomes } from "../completion/judge-outcomes.js";
import { type CompletionCondition, type ConditionRunner, runConditions } from "./run-conditions.js";

export type { CompletionCondition };

export interface CheckCompletionOptions {
  /** Stop at the first failing condition (docs/completion.md#validators) instead of running all. */
  readonly stopAtFirstFailure?: boolean;
  /** Validators running at once (docs/completion.md#concurrency); default all. */
  readonly concurrency?: number;
}

/**
 * CompletionValidator: runs the conditions, up to `concurrency` at once, and
 * judges their outcomes in condition order. The first failing condition
 * decides the pattern (docs/completion.md#validators), whichever finished
 * first; by default every condition runs, so the record and the next summary
 * show every unmet condition at once instead of one per iteration. A
 * configuration error starts no later check: they could not change the outcome.
 */
export async function checkCompletion(
  conditions: readonly CompletionCondition[],
  runner: ConditionRunner,
  options: CheckCompletionOptions = {},
): Promise<CompletionCheck> {
  const outcomes = await runConditions(conditions, runner, {
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    endsPhase: (outcome) =>
      outcome.configError !== undefined || (!outcome.valid && options.stopAtFirstFailure === true),
  });
  return judgeOutcomes(outcomes);
}
