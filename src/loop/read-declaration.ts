import { type CompletionDecision, decideCompletion } from "../completion/decide-completion.js";
import { makeChannelInput } from "../completion/decision-channels.js";
import type { BackendResponse } from "../ports/backend.js";
import type { RecordedFile } from "../ports/events.js";
import type { FileSnapshot } from "../ports/files.js";
import { emit, type RunContext, updateState } from "./run-context.js";
import type { Turn } from "./start-iteration.js";

/**
 * Reads the model's declaration through the decision channels
 * (docs/completion.md#decision-channels) and records it: which channel spoke, whether a decision file's check
 * id matched, and the undecidable streak.
 */
export async function readDeclaration(
  run: RunContext,
  turn: Turn,
  response: BackendResponse,
): Promise<CompletionDecision> {
  const after = await run.ports.readFile(run.decisionPath);
  const decision = decideCompletion({
    ...makeChannelInput(
      { response, decisionFileBefore: turn.decisionBefore, decisionFileAfter: after },
      { completionSignal: run.agent.registry.completionSignal, checkId: turn.checkId },
    ),
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
    ...(decision.blockedReason === undefined ? {} : { blockedReason: decision.blockedReason }),
    undecidableStreak: decision.undecidableStreak,
    ...decisionFileOf(turn.decisionBefore, after),
  });
  return decision;
}

/** The decision file as read around the query, for the record (docs/replay.md#replay). */
function decisionFileOf(
  before: FileSnapshot | undefined,
  after: FileSnapshot | undefined,
): { decisionFile?: { before?: RecordedFile; after?: RecordedFile } } {
  if (before === undefined && after === undefined) return {};
  const kept = (file: FileSnapshot): RecordedFile => ({
    text: file.text,
    modifiedAtMs: file.modifiedAtMs,
    ...(file.refused === undefined ? {} : { refused: { ...file.refused } }),
  });
  return {
    decisionFile: {
      ...(before === undefined ? {} : { before: kept(before) }),
      ...(after === undefined ? {} : { after: kept(after) }),
    },
  };
}
