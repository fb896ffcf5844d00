import { inventoryOf } from "../integrity/guards.js";
import { unrunnableReason } from "../integrity/unrunnable-check.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { Baseline } from "../ports/baseline.js";
import type { RunEventOf } from "../ports/events.js";
import type { TestInventory } from "../ports/test-inventory.js";
import { countTests } from "../tool-output/inventory-test.js";
import { checksCwd, placeChecks } from "./checked-commit.js";
import { makeCheckRunner, phaseConcurrency, readPhaseFingerprint } from "./run-checks.js";
import { type CompletionCondition, runConditions } from "./run-conditions.js";
import {
  announce,
  emit,
  isoTime,
  type RunContext,
  saveState,
  updateState,
  warn,
} from "./run-context.js";
import { failed, type Terminal } from "./terminal-state.js";

/** The check id of the baseline's checks. */
export const BASELINE_CHECK_ID = "baseline";

/**
 * The baseline (docs/integrity.md#baseline): before iteration 1, the
 * completion steps' validators run once on the untouched tree (at once, up to
 * the lowest `concurrency` of the steps; their verdicts kept for
 * docs/completion.md#cached-verdicts), the protected paths are hashed, and
 * what they found is kept in run.json (which checks pass, the files dirty at
 * start, every test validator's test inventory).
 * A resumed run keeps the baseline its first attempt took.
 * A check that cannot run on the untouched tree ends the run before the first query
 * (`config_error`, docs/integrity.md#cannot-run); the baseline is then not kept, so a resumed
 * run takes it again.
 */
export async function takeBaseline(run: RunContext): Promise<Terminal | undefined> {
  const { integrity } = run.ports;
  // Kept by this process for the git-state guard, a resumed run's too (docs/integrity.md#git-state).
  const recording = integrity.recordGitState();
  if (run.state.baseline !== undefined) {
    await recording;
    return undefined;
  }
  if (run.state.iteration > 0) {
    await recording;
    warn(
      run,
      run.state.iteration,
      "this run has no baseline: the integrity guards have nothing to compare",
    );
    return undefined;
  }
  const startedMs = run.ports.clock.now();
  const conditions = baselineConditions(run.agent);
  announce(run, {
    type: "baseline-start",
    validators: conditions.map((condition) => condition.validator),
  });
  // Nothing has run in the tree yet, and these only read it: git is asked all at once
  // (docs/performance.md#run-start).
  const [gitState, dirtyFiles, commit] = await Promise.all([
    recording,
    integrity.listDirtyFiles(),
    integrity.readHeadCommit().catch(() => ""),
  ]);
  const place = await placeChecks(run, commit === "" ? undefined : { commit });
  if ("unreadable" in place) {
    warn(run, 0, `the baseline's checks run in the tree: ${place.unreadable.detail}`);
  }
  const cwd = "unreadable" in place ? run.workTree : checksCwd(place);
  const fingerprint = await readPhaseFingerprint(
    run,
    conditions.map((condition) => condition.validator),
    "room" in place ? { commit, tree: place.room.tree } : undefined,
  );
  const checks: RunEventOf<"baseline">["checks"] = [];
  const inventories: Record<string, TestInventory> = {};
  const concurrency = phaseConcurrency(Object.values(run.agent.registry.completionSteps));
  const outcomes = await runConditions(
    conditions,
    makeCheckRunner(run, { checkId: BASELINE_CHECK_ID, cwd }, fingerprint),
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
  // A check the abort stopped measured nothing: a resumed run takes the baseline again.
  if (run.signal.aborted) return undefined;
  const unrunnable = outcomes
    .map((outcome) => unrunnableReason(run.agent.registry.validators[outcome.validator], outcome))
    .find((reason) => reason !== undefined);
  // After the checks ran: what running them writes is part of the start, not the model's doing.
  const protectedFiles = await integrity.fingerprintProtected();
  const baseline: Baseline = {
    takenAt: isoTime(run),
    ...(commit === "" ? {} : { commit }),
    checks: checks.map(({ validator, valid }) => ({ validator, valid })),
    dirtyFiles,
    inventories,
    protectedFiles,
    ...(Object.keys(gitState).length === 0 ? {} : { gitState }),
    ...("room" in place ? { keptInRoom: [...(run.ports.checksRoom?.kept ?? [])] } : {}),
  };
  if (unrunnable === undefined) {
    updateState(run, { baseline });
    saveState(run);
  }
  emit(run, {
    type: "baseline",
    checks,
    dirtyFiles: [...dirtyFiles],
    protectedFiles: Object.keys(protectedFiles).length,
    durationMs: run.ports.clock.now() - startedMs,
  });
  return unrunnable === undefined ? undefined : failed("config_error", unrunnable);
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

/**
 * Every validator a completion step of the agent names, once, in order, with the params of the
 * first condition that names it (docs/completion.md#condition-params).
 */
export function baselineConditions(agent: ResolvedAgent): CompletionCondition[] {
  const steps = Object.values(agent.registry.completionSteps);
  const first = new Map<string, CompletionCondition>();
  for (const condition of steps.flatMap((step) => step.completionConditions)) {
    if (!first.has(condition.validator)) first.set(condition.validator, condition);
  }
  return [...first.values()];
}

/**
 * The definition a resumed run now works from (`--reload-definition`, or a
 * first snapshot of a run that had none) becomes the baseline of the
 * definition's protected paths; the other protected paths keep theirs
 * (docs/integrity.md#resume).
 */
export async function rebaseDefinition(run: RunContext): Promise<void> {
  const { baseline } = run.state;
  if (baseline === undefined) return;
  const { integrity } = run.ports;
  const kept = Object.entries(baseline.protectedFiles).filter(
    ([path]) => !integrity.isDefinitionPath(path),
  );
  const protectedFiles = {
    ...Object.fromEntries(kept),
    ...(await integrity.fingerprintDefinition()),
  };
  updateState(run, { baseline: { ...baseline, protectedFiles } });
  saveState(run);
}
