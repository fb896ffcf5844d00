import { type CompletionCheck, checkCompletion } from "../completion/check-completion.js";
import type { ClosureReviewReading } from "../completion/closure-review.js";
import { type CompletionVerdict, isComplete } from "../completion/is-complete.js";
import type { ValidatorOutcome } from "../ports.js";
import type { RunState } from "../record/run-state.js";
import { checkGuards, guardFailure } from "./check-guards.js";
import { guardSandbox, recordRefusals } from "./guard-sandbox.js";
import { reviewClosure } from "./review-closure.js";
import { emit, type RunContext, updateState } from "./run-context.js";
import type { Declaration } from "./run-settings.js";
import type { Turn } from "./start-iteration.js";
import { abortedWhen, failed, isTerminal, type Terminal } from "./terminal-state.js";

/** The verdict on a declaration, with what a completion keeps in the record. */
export type Verification = CompletionVerdict & {
  /** The declaration's summary and the validators that passed, for run.json's `completion`. */
  readonly completion: NonNullable<RunState["completion"]>;
};

/**
 * The checks a declaration starts (docs/completion.md): the completion
 * step's validators in order, the integrity guards (docs/integrity.md#guards), then (when they
 * pass) the closure review, then the task's external conditions. A validator whose definition is wrong
 * (exit 126/127, a bad module) ends the run with `error`.
 */
export async function verifyCompletion(
  run: RunContext,
  turn: Turn,
  declaration: Declaration,
): Promise<Verification | Terminal> {
  const conditions = turn.completionStep?.completionConditions ?? [];
  // The protected paths are hashed while the validators run: the model's turn is over.
  const protectedNow = run.ports.integrity.fingerprintProtected();
  protectedNow.catch(() => undefined);
  const validation = await checkCompletion(conditions, (name) => runOneValidator(run, turn, name));
  if (run.signal.aborted)
    return abortedWhen(run, `during the checks of iteration ${turn.iteration}`);
  if (!validation.valid && validation.configError !== undefined) {
    return failed(
      "config_error",
      `validator "${validation.validator}" cannot run: ${validation.configError}`,
    );
  }
  recordFlaky(run, turn, validation);
  const completion = { summary: declaration.summary ?? "", checksPassed: passedChecks(validation) };
  const guarded = guardFailure(
    await checkGuards(run, turn, { validation, protectedNow }),
    validation,
  );
  if (guarded !== undefined) return { complete: false, failure: guarded, completion };
  let closureReview: ClosureReviewReading | undefined;
  const review = turn.completionStep?.closureReview;
  if (validation.valid && review !== undefined) {
    const reading = await reviewClosure(run, turn, review, {
      declaration,
      validation,
      protectedNow: await protectedNow.catch(() => ({})),
    });
    if (isTerminal(reading)) return reading;
    closureReview = reading;
    // The reviewer runs in the sandbox too: what it was refused fails this declaration.
    const refused = await guardSandbox(run, turn.iteration);
    if (refused !== undefined) return { complete: false, failure: refused, completion };
  }
  const verdict = await isComplete({
    validation,
    ...(closureReview === undefined ? {} : { closureReview }),
    external: run.externalConditions,
  });
  return { ...verdict, completion };
}

/** A check that failed and then passed on an unchanged tree is flaky: kept in run.json (docs/integrity.md#flaky-checks). */
function recordFlaky(run: RunContext, turn: Turn, validation: CompletionCheck): void {
  const flaky = validation.outcomes
    .filter((outcome) => outcome.flaky !== undefined)
    .map((outcome) => ({ iteration: turn.iteration, validator: outcome.validator }));
  if (flaky.length > 0) updateState(run, { flaky: [...(run.state.flaky ?? []), ...flaky] });
}

/** Names of the validators that passed, once each, in condition order. */
function passedChecks(validation: CompletionCheck): string[] {
  const passed = validation.outcomes.filter((outcome) => outcome.valid);
  return [...new Set(passed.map((outcome) => outcome.validator))];
}

async function runOneValidator(
  run: RunContext,
  turn: Turn,
  name: string,
): Promise<ValidatorOutcome> {
  const definition = run.agent.registry.validators[name];
  const command = definition?.type === "command" ? definition.command : undefined;
  // The run was stopped: the checks left are not run, and none of them failed.
  if (run.signal.aborted)
    return { validator: name, valid: false, params: {}, durationMs: 0, aborted: true };
  emit(run, {
    type: "validator-start",
    iteration: turn.iteration,
    validator: name,
    ...(command === undefined ? {} : { command }),
  });
  const outcome = await run.ports.runValidator(name, {
    cwd: run.cwd,
    agentDir: run.agent.dir,
    checkId: turn.checkId,
    env: { CLOSER_CHECK_ID: turn.checkId, CLOSER_RUN_ID: run.runId },
    signal: run.signal,
  });
  emit(run, {
    type: "validator-end",
    iteration: turn.iteration,
    validator: name,
    valid: outcome.valid,
    ...(outcome.pattern === undefined ? {} : { pattern: outcome.pattern }),
    ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
    durationMs: outcome.durationMs,
    ...(outcome.timedOut === undefined ? {} : { timedOut: outcome.timedOut }),
    ...(outcome.aborted === true ? { aborted: true } : {}),
    params: { ...outcome.params },
    ...(outcome.stdout === undefined ? {} : { stdout: outcome.stdout }),
    ...(outcome.stderr === undefined ? {} : { stderr: outcome.stderr }),
    ...(outcome.configError === undefined ? {} : { configError: outcome.configError }),
    ...(outcome.flaky === undefined ? {} : { flaky: { ...outcome.flaky } }),
  });
  if (outcome.sandboxRefusals !== undefined) {
    const { iteration } = turn;
    const refusals = outcome.sandboxRefusals;
    recordRefusals(run, { iteration, kind: "validators", refusals, validator: name });
  }
  return outcome;
}
