import { inventoryOf } from "../integrity/guards.js";
import { unrunnableReason } from "../integrity/unrunnable-check.js";
import type { Baseline } from "../ports/baseline.js";
import type { RunEventOf } from "../ports/events.js";
import type { ProtectedFingerprint } from "../ports/files.js";
import type { TestInventory } from "../ports/test-inventory.js";
import { countTests } from "../tool-output/inventory-test.js";
import { makeCheckRunner, phaseConcurrency } from "./run-checks.js";
import { type CompletionCondition, runConditions } from "./run-conditions.js";
import { emit, type RunContext, saveState, updateState } from "./run-context.js";
import { failed, type Terminal } from "./terminal-state.js";

/** The check id of the baseline's checks. */
export const BASELINE_CHECK_ID = "baseline";

/**
 * The baseline as it is before its checks ran: what the first query needs. Its protected paths
 * are absent when they are hashed after the checks (checks run in the tree).
 */
export type BaselineStart = Omit<
  Baseline,
  "checks" | "inventories" | "protectedFiles" | "checksPending"
> & { readonly protectedFiles?: ProtectedFingerprint };

/** One measuring of the baseline: its checks, where they run, and the start it completes. */
export interface BaselineMeasure {
  readonly conditions: readonly CompletionCondition[];
  /** The folder the checks run in: the clean room's, or the tree's. */
  readonly cwd: string;
  /** The key the checks' verdicts are kept under (docs/completion.md#cached-verdicts). */
  readonly fingerprint: string | undefined;
  readonly startedMs: number;
  readonly start: BaselineStart;
  /** Whether run.json is written once the baseline is kept (not while a query is under way). */
  readonly save: boolean;
}

/**
 * Runs the baseline's checks (at once, up to the lowest `concurrency` of the completion steps)
 * and keeps what they found with the start: which checks pass, every test validator's test
 * inventory; the `baseline` event says it. Returns why a check cannot run
 * (docs/integrity.md#cannot-run), and the baseline is then not completed: a resumed run takes
 * it again. A check the abort stopped (the run's, or `signal`'s) measured nothing, and nothing is
 * kept or said.
 */
export async function measureBaseline(
  run: RunContext,
  measure: BaselineMeasure,
  signal: AbortSignal = run.signal,
): Promise<string | undefined> {
  const checks: RunEventOf<"baseline">["checks"] = [];
  const inventories: Record<string, TestInventory> = {};
  const concurrency = phaseConcurrency(Object.values(run.agent.registry.completionSteps));
  const outcomes = await runConditions(
    measure.conditions,
    makeCheckRunner(
      run,
      { checkId: BASELINE_CHECK_ID, cwd: measure.cwd, signal },
      measure.fingerprint,
    ),
    concurrency === undefined ? {} : { concurrency },
  );
  for (const outcome of outcomes) {
    const inventory = inventoryOf(outcome);
    if (inventory !== undefined) inventories[outcome.validator] = inventory;
    checks.push({
      validator: outcome.validator,
      valid: outcome.valid,
      durationMs: outcome.durationMs,
      ...testCountOf(inventory),
    });
  }
  if (signal.aborted) return undefined;
  const unrunnable = outcomes
    .map((outcome) => unrunnableReason(run.agent.registry.validators[outcome.validator], outcome))
    .find((reason) => reason !== undefined);
  // Checks run in the tree: what running them writes is part of the start, not the model's doing.
  const protectedFiles =
    measure.start.protectedFiles ?? (await run.ports.integrity.fingerprintProtected());
  const baseline: Baseline = {
    ...measure.start,
    checks: checks.map(({ validator, valid }) => ({ validator, valid })),
    inventories,
    protectedFiles,
  };
  if (unrunnable === undefined) {
    updateState(run, { baseline });
    if (measure.save) saveState(run);
  }
  emit(run, {
    type: "baseline",
    checks,
    dirtyFiles: [...baseline.dirtyFiles],
    protectedFiles: Object.keys(protectedFiles).length,
    durationMs: run.ports.clock.now() - measure.startedMs,
  });
  return unrunnable;
}

/**
 * Lets the baseline's checks run beside the first query: a check that cannot run, or checks
 * that throw, stop the query under way (`stopped`), and the run ends as the baseline says. The
 * checks stop with the run, or when the run ended before it needed them (`cancel`).
 */
export function measureBesideQuery(
  run: RunContext,
  measuring: (signal: AbortSignal) => Promise<string | undefined>,
): void {
  const stop = new AbortController();
  const cancelled = new AbortController();
  const ended = measuring(AbortSignal.any([run.signal, cancelled.signal])).then(
    (reason) => {
      if (reason !== undefined) stop.abort(reason);
      return reason;
    },
    (error: unknown) => {
      stop.abort(error);
      throw error;
    },
  );
  ended.catch(() => undefined); // awaited by the first declaration, the first iteration's end and the loop's
  run.baselineChecks = {
    ended,
    stopped: stop.signal,
    cancel: () => cancelled.abort("the run ended before it needed the baseline's checks"),
  };
}

/**
 * Waits for the baseline's checks under way beside the first query: the end of the run when one
 * cannot run (`config_error`, docs/integrity.md#cannot-run); rethrows what they threw.
 */
export async function awaitBaseline(run: RunContext): Promise<Terminal | undefined> {
  const checks = run.baselineChecks;
  if (checks === undefined) return undefined;
  const reason = await checks.ended;
  if (reason !== undefined) return failed("config_error", reason);
  run.baselineChecks = undefined;
  return undefined;
}

/**
 * The run ended before its checks needed the baseline (an error, `blocked`, a budget): the
 * baseline's checks still under way are stopped rather than waited for, and measured again by
 * a resumed run (docs/integrity.md#baseline-beside-query). A check already found unable to run
 * still ends the run as it says.
 */
export async function stopUnneededBaseline(run: RunContext): Promise<Terminal | undefined> {
  run.baselineChecks?.cancel();
  return awaitBaseline(run);
}

/** The end of the run once the baseline's checks stopped the query (a check cannot run). */
export async function baselineStopped(run: RunContext): Promise<Terminal | undefined> {
  return run.baselineChecks?.stopped.aborted === true ? awaitBaseline(run) : undefined;
}

/**
 * What the baseline line shows of a test validator: the count of its runner's
 * summary, else of the tests it names, and the runner when the count is unknown.
 */
function testCountOf(inventory: TestInventory | undefined): {
  tests?: number;
  testRunner?: string;
} {
  if (inventory === undefined) return {};
  const tests = countTests(inventory);
  return tests === undefined ? { testRunner: inventory.runner } : { tests };
}
