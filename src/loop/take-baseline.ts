import type { ResolvedAgent } from "../ports/agent.js";
import type { Baseline } from "../ports/baseline.js";
import type { ProtectedFingerprint } from "../ports/files.js";
import type { FixedWork } from "../ports/loop-ports.js";
import {
  type BaselineMeasure,
  type BaselineStart,
  measureBaseline,
  measureBesideQuery,
} from "./baseline-checks.js";
import { type CheckPlace, checksCwd, placeChecks } from "./checked-commit.js";
import { readPhaseFingerprint } from "./run-checks.js";
import type { CompletionCondition } from "./run-conditions.js";
import { announce, isoTime, type RunContext, saveState, updateState, warn } from "./run-context.js";
import { failed, type Terminal } from "./terminal-state.js";

/**
 * The baseline (docs/integrity.md#baseline): before iteration 1, what the first query needs is
 * read from the untouched tree — the git state, the files dirty at start, the commit HEAD names,
 * the protected paths — and the completion steps' validators run once on it (their verdicts
 * kept for docs/completion.md#cached-verdicts). In the clean room, made from the untouched work
 * before the first query, the checks run beside that query (`run.baselineChecks`); where there
 * is no room, before it. A resumed run keeps the baseline its first attempt took, and runs the
 * checks that had not ended then on the work as that attempt found it.
 * A check that cannot run on the untouched tree ends the run (`config_error`,
 * docs/integrity.md#cannot-run); found before the first query, the baseline is then not kept.
 */
export async function takeBaseline(run: RunContext): Promise<Terminal | undefined> {
  // Kept by this process for the git-state guard, a resumed run's too (docs/integrity.md#git-state).
  const recording = run.ports.integrity.recordGitState();
  if (run.state.baseline !== undefined || run.state.iteration > 0) {
    await recording;
    await keepBaseline(run);
    return undefined;
  }
  const startedMs = run.ports.clock.now();
  const conditions = baselineConditions(run.agent);
  announce(run, {
    type: "baseline-start",
    validators: conditions.map((condition) => condition.validator),
  });
  const { start, place, protectedFiles } = await readUntouched(run, recording);
  const names = conditions.map((condition) => condition.validator);
  if ("room" in place && protectedFiles !== undefined) {
    const room = { commit: start.commit ?? "", tree: place.room.tree };
    const fingerprint = await readPhaseFingerprint(run, names, room);
    const measure = { conditions, cwd: place.room.cwd, fingerprint, startedMs, save: false };
    measureBesideFirstQuery(run, { ...start, protectedFiles, tree: room.tree }, measure);
    return undefined;
  }
  // No room: the checks run in the untouched tree, so before the first query.
  if ("unreadable" in place) {
    warn(run, 0, `the baseline's checks run in the tree: ${place.unreadable.detail}`);
  }
  const cwd = "unreadable" in place ? run.workTree : checksCwd(place);
  const fingerprint = await readPhaseFingerprint(run, names);
  const measure = { conditions, cwd, fingerprint, startedMs, start, save: true };
  const unrunnable = await measureBaseline(run, measure);
  return unrunnable === undefined ? undefined : failed("config_error", unrunnable);
}

/**
 * What the first query needs of the untouched tree, and where the checks run: the clean room
 * made of it, with the protected paths hashed meanwhile (nothing a check runs in the room
 * writes the tree); without a room, they are hashed after the checks.
 */
async function readUntouched(
  run: RunContext,
  recording: Promise<Readonly<Record<string, string>>>,
): Promise<{
  start: BaselineStart;
  place: CheckPlace;
  protectedFiles: ProtectedFingerprint | undefined;
}> {
  const { integrity } = run.ports;
  // Nothing has run in the tree yet, and these only read it: git is asked all at once
  // (docs/performance.md#run-start).
  const [gitState, dirtyFiles, commit] = await Promise.all([
    recording,
    integrity.listDirtyFiles(),
    integrity.readHeadCommit().catch(() => ""),
  ]);
  const inRoom = run.ports.checksRoom !== undefined && commit !== "";
  const [place, protectedFiles] = await Promise.all([
    placeChecks(run, commit === "" ? undefined : { commit }),
    inRoom ? integrity.fingerprintProtected() : undefined,
  ]);
  const start: BaselineStart = {
    takenAt: isoTime(run),
    ...(commit === "" ? {} : { commit }),
    dirtyFiles,
    ...(Object.keys(gitState).length === 0 ? {} : { gitState }),
    ...("room" in place ? { keptInRoom: [...(run.ports.checksRoom?.kept ?? [])] } : {}),
  };
  return { start, place, protectedFiles };
}

/** A resumed run's baseline: kept, its checks run again where they had not ended, or none. */
async function keepBaseline(run: RunContext): Promise<void> {
  const kept = run.state.baseline;
  if (kept?.checksPending === true) return measureAgain(run, kept);
  if (kept !== undefined) return;
  warn(
    run,
    run.state.iteration,
    "this run has no baseline: the integrity guards have nothing to compare",
  );
}

/**
 * Keeps what the first query needs (run.json has it before the query is sent) and starts the
 * checks in the room beside it: until they end, the baseline says its checks are pending.
 */
function measureBesideFirstQuery(
  run: RunContext,
  start: BaselineStart & Pick<Baseline, "protectedFiles">,
  measure: Omit<BaselineMeasure, "start">,
): void {
  updateState(run, { baseline: { ...start, checks: [], inventories: {}, checksPending: true } });
  saveState(run);
  measureBesideQuery(run, (signal) => measureBaseline(run, { ...measure, start }, signal));
}

/**
 * A resumed run whose baseline's checks had not ended runs them on the work as its first attempt
 * found it: a room made from the tree closer wrote then, never the tree as the model left it.
 * Where that room cannot be made, the guards have no test inventory to compare.
 */
async function measureAgain(run: RunContext, kept: Baseline): Promise<void> {
  const { checksPending: _pending, checks: _checks, inventories: _inventories, ...start } = kept;
  const work: FixedWork | undefined =
    kept.commit === undefined || kept.tree === undefined
      ? undefined
      : { commit: kept.commit, tree: kept.tree };
  const place =
    work === undefined ? undefined : await placeChecks(run, { commit: work.commit }, work);
  if (place === undefined || !("room" in place)) {
    const why = place !== undefined && "unreadable" in place ? `: ${place.unreadable.detail}` : "";
    updateState(run, { baseline: { ...start, checks: [], inventories: {} } });
    warn(
      run,
      run.state.iteration,
      `the baseline's checks did not end before the run stopped, and the work as it found it cannot be checked again${why}: the tests-removed guard has no test inventory to compare`,
    );
    return;
  }
  const conditions = baselineConditions(run.agent);
  const startedMs = run.ports.clock.now();
  announce(run, {
    type: "baseline-start",
    validators: conditions.map((condition) => condition.validator),
  });
  const names = conditions.map((condition) => condition.validator);
  const fingerprint = await readPhaseFingerprint(run, names, work);
  const measure = { conditions, cwd: place.room.cwd, fingerprint, startedMs, save: false };
  measureBesideQuery(run, (signal) => measureBaseline(run, { ...measure, start }, signal));
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
