import type { ClosureReviewReading } from "../completion/closure-review.js";
import { isComplete } from "../completion/is-complete.js";
import type { CompletionCheck } from "../completion/judge-outcomes.js";
import type { CheckFailure } from "../ports/check-failure.js";
import type { Declaration } from "../ports/declaration.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import { withOthers } from "../retry/other-failures.js";
import { checkCompletion } from "./check-completion.js";
import { checkGuards } from "./check-guards.js";
import { guardSandbox } from "./guard-sandbox.js";
import { reviewClosure } from "./review-closure.js";
import { makeCheckRunner, phaseConcurrency, readPhaseFingerprint } from "./run-checks.js";
import { type RunContext, updateState } from "./run-context.js";
import type { Turn } from "./start-iteration.js";
import { abortedWhen, failed, isTerminal, type Terminal } from "./terminal-state.js";
import type { CheckedVerdict } from "./verdict.js";

/**
 * The checks a declaration starts (docs/completion.md): the completion step's validators (at
 * once up to its concurrency, judged in condition order; an outcome on a tree already checked
 * is reused), the integrity guards (docs/integrity.md#guards), then (when they pass) the
 * closure review, then the task's external conditions. A validator whose definition is wrong
 * (exit 126/127, a bad module) ends the run with `error`.
 */
export async function verifyCompletion(
  run: RunContext,
  turn: Turn,
  checking: {
    readonly declaration: Declaration;
    /** Where the checks run: the clean room's folder, or the tree. */
    readonly cwd: string;
    /** What the clean room holds, when the checks run there. */
    readonly room?: { readonly commit: string; readonly tree: string };
  },
): Promise<CheckedVerdict | Terminal> {
  const { declaration, cwd, room } = checking;
  const conditions = turn.completionStep?.completionConditions ?? [];
  // The protected paths are hashed while the validators run: the model's turn is over.
  const protectedNow = run.ports.integrity.fingerprintProtected();
  protectedNow.catch(() => undefined);
  const names = conditions.map((condition) => condition.validator);
  const fingerprint = await readPhaseFingerprint(run, names, room);
  const phase = { checkId: turn.checkId, iteration: turn.iteration, cwd };
  const concurrency = phaseConcurrency([turn.completionStep]);
  const validation = await checkCompletion(
    conditions,
    makeCheckRunner(run, phase, fingerprint),
    concurrency === undefined ? {} : { concurrency },
  );
  if (run.signal.aborted)
    return abortedWhen(run, `during the checks of iteration ${turn.iteration}`);
  if (!validation.valid && validation.configError !== undefined) {
    return failed(
      "config_error",
      `validator "${validation.brokenValidator ?? validation.validator}" cannot run: ${validation.configError}`,
    );
  }
  recordFlaky(run, turn, validation);
  const { outcomes } = validation;
  const guarded = await checkGuards(run, turn, { validation, protectedNow });
  if (guarded !== undefined) return refuted(guarded, outcomes);
  let closureReview: ClosureReviewReading | undefined;
  const review = turn.completionStep?.closureReview;
  if (validation.valid && review !== undefined) {
    const reading = await reviewClosure(run, turn, review, {
      declaration,
      validation,
      protectedNow: await protectedNow.catch(() => ({})),
      ...(room === undefined ? {} : { roomTree: room.tree }),
    });
    if (isTerminal(reading)) return reading;
    closureReview = reading;
    // The reviewer runs in the sandbox too: what it was refused fails this declaration.
    const refused = await guardSandbox(run, turn.iteration);
    if (refused !== undefined) {
      // What the review found is told with the refusal: no condition is checked for it.
      const judged = await isComplete({ validation, closureReview, external: [], declaration });
      return refuted(withOthers(refused, judged.complete ? [] : [judged.failure]), outcomes);
    }
  }
  const verdict = await isComplete({
    validation,
    ...(closureReview === undefined ? {} : { closureReview }),
    external: run.externalConditions,
    declaration,
  });
  return verdict.complete ? { kind: "verified", outcomes } : refuted(verdict.failure, outcomes);
}

function refuted(failure: CheckFailure, outcomes: readonly ValidatorOutcome[]): CheckedVerdict {
  return { kind: "refuted", failure, declared: true, outcomes };
}

/** A check that failed and then passed on an unchanged tree is flaky: kept in run.json (docs/integrity.md#flaky-checks). */
function recordFlaky(run: RunContext, turn: Turn, validation: CompletionCheck): void {
  const flaky = validation.outcomes
    .filter((outcome) => outcome.flaky !== undefined)
    .map((outcome) => ({ iteration: turn.iteration, validator: outcome.validator }));
  if (flaky.length > 0) updateState(run, { flaky: [...(run.state.flaky ?? []), ...flaky] });
}
