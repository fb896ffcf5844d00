import type { ValidatorOutcome } from "../ports/validator.js";

/** A completion condition: the name of a validator in the registry, and its params. */
export interface CompletionCondition {
  readonly validator: string;
  /** Put into the validator's command, path or module input (docs/completion.md#condition-params). */
  readonly params?: Readonly<Record<string, unknown>>;
}

/** How the checks of one phase reach their validators (docs/completion.md#concurrency). */
export interface ConditionRunner {
  /** An outcome already known for this condition on this tree: nothing runs for it. */
  readonly reuse?: (condition: CompletionCondition) => ValidatorOutcome | undefined;
  /** Runs the condition's validator; it never throws for a failing check. */
  readonly run: (condition: CompletionCondition) => Promise<ValidatorOutcome>;
  /** Told, in condition order, that a validator runs (never for a reused outcome). */
  readonly started?: (validatorName: string) => void;
  /** Told every outcome, in condition order, whatever finished first. */
  readonly ended?: (outcome: ValidatorOutcome) => void;
  /** True once nothing more should start (the run was stopped). */
  readonly stopped?: () => boolean;
}

export interface RunConditionsOptions {
  /** Validators running at once; default all of them, 1 = one after another. */
  readonly concurrency?: number;
  /** Whether an outcome means no later condition needs to start. */
  readonly endsPhase?: (outcome: ValidatorOutcome) => boolean;
}

/**
 * Runs the validators of `conditions` up to `concurrency` at once, starting them in
 * condition order, and returns their outcomes in that order. What is reported
 * does not depend on which finished first: `ended` is called in condition
 * order, and `started` for a condition `i` at or past the limit right after the
 * end of condition `i - concurrency` (it started no later than that), so one
 * phase always reports the same sequence. Once an outcome ends the phase, or
 * the run stopped, no later condition starts; those already running finish and
 * are reported.
 */
export function runConditions(
  conditions: readonly CompletionCondition[],
  runner: ConditionRunner,
  options: RunConditionsOptions = {},
): Promise<ValidatorOutcome[]> {
  const names = conditions.map((condition) => condition.validator);
  const limit = Math.max(1, Math.min(options.concurrency ?? names.length, names.length));
  const outcomes: (ValidatorOutcome | undefined)[] = [];
  const ran: boolean[] = [];
  let launched = 0;
  let running = 0;
  let reported = 0;
  let ended = false;
  return new Promise((resolve, reject) => {
    const report = () => {
      while (reported < launched && outcomes[reported] !== undefined) {
        runner.ended?.(outcomes[reported] as ValidatorOutcome);
        const held = reported + limit;
        reported++;
        if (held < launched && ran[held] === true) runner.started?.(names[held] as string);
      }
      if (reported === launched && running === 0) resolve(outcomes as ValidatorOutcome[]);
    };
    const finish = (index: number, outcome: ValidatorOutcome) => {
      outcomes[index] = outcome;
      if (options.endsPhase?.(outcome) === true) ended = true;
    };
    const launch = () => {
      while (launched < names.length && running < limit && !ended && runner.stopped?.() !== true) {
        const index = launched++;
        const condition = conditions[index] as CompletionCondition;
        const name = condition.validator;
        const reused = runner.reuse?.(condition);
        if (reused !== undefined) {
          finish(index, reused);
          continue;
        }
        ran[index] = true;
        running++;
        if (index < limit || index < reported + limit) runner.started?.(name);
        runner.run(condition).then((outcome) => {
          running--;
          finish(index, outcome);
          launch();
          report();
        }, reject);
      }
    };
    launch();
    report();
  });
}
