import { type CompletionDecision, decideCompletion } from "../completion/decision.js";
import type { BackendResponse } from "../ports.js";
import type { FileSnapshot } from "../record/read-optional-file.js";
import { emit, type RunContext, updateState } from "./run-context.js";
import type { Turn } from "./start-iteration.js";

/**
 * Reads the model's declaration through the decision channels (SPEC §4.1,
 * §4.2) and records it: which channel spoke, whether a decision file's check
 * id matched, and the undecidable streak.
 */
export async function readDeclaration(
  run: RunContext,
  turn: Turn,
  response: BackendResponse,
): Promise<CompletionDecision> {
  const after = await run.ports.readFile(run.decisionPath);
  const decision = decideCompletion({
    ...(response.structuredOutput === undefined
      ? {}
      : { structuredOutput: response.structuredOutput }),
    text: response.text,
    ...(after === undefined
      ? {}
      : { decisionFile: { content: after.text, modifiedAtMs: after.modifiedAtMs } }),
    completionSignal: run.agent.registry.completionSignal,
    checkId: turn.checkId,
    checkStartedAtMs: checkStartInFileTime(turn.decisionBefore, after),
    previousUndecidableStreak: run.state.counters.undecidableStreak,
    maxUndecidable: run.agent.runner.maxUndecidable,
  });
  updateState(run, {
    counters: { ...run.state.counters, undecidableStreak: decision.undecidableStreak },
  });
  emit(run, {
    type: "completion-signal",
    iteration: turn.iteration,
    declared: decision.decision === "complete",
    ...(decision.status === undefined ? {} : { status: decision.status }),
    ...(decision.action === undefined ? {} : { action: decision.action }),
  });
  emit(run, {
    type: "decision",
    iteration: turn.iteration,
    checkId: turn.checkId,
    source: decision.source,
    decision: decision.decision,
    ...(decision.checkIdMatch === undefined ? {} : { checkIdMatch: decision.checkIdMatch }),
    ...(decision.stale === undefined ? {} : { stale: decision.stale }),
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    undecidableStreak: decision.undecidableStreak,
  });
  return decision;
}

/**
 * "Written after the check started" is judged in the file system's own time,
 * so a clock that differs from it (or a test clock) can't make a fresh file
 * look old: a file that did not exist before the query, or changed during it,
 * is fresh; one left exactly as it was is older than the check.
 */
function checkStartInFileTime(
  before: FileSnapshot | undefined,
  after: FileSnapshot | undefined,
): number {
  if (after === undefined || before === undefined) return Number.NEGATIVE_INFINITY;
  const changed = after.modifiedAtMs !== before.modifiedAtMs || after.text !== before.text;
  return changed ? after.modifiedAtMs : after.modifiedAtMs + 1;
}
