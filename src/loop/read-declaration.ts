import { type CompletionDecision, decideAnswer } from "../completion/decide-completion.js";
import { summarizeIteration } from "../completion/summarize-iteration.js";
import type { BackendResponse } from "../ports/backend.js";
import type { CheckFailure } from "../ports/check-failure.js";
import type { RecordedFile } from "../ports/events.js";
import type { FileSnapshot } from "../ports/files.js";
import type { IterationSummary } from "../ports/run-state.js";
import { askCompletion } from "./ask-completion.js";
import { guardGitState } from "./guard-git-state.js";
import { guardSandbox } from "./guard-sandbox.js";
import { queryBackend } from "./query-backend.js";
import { emit, type RunContext, updateState } from "./run-context.js";
import type { Turn } from "./start-iteration.js";
import type { Terminal } from "./terminal-state.js";

/** One answer of the model, as every stage after the read takes it. */
export interface Answer {
  readonly turn: Turn;
  readonly response: BackendResponse;
  /** What the next prompt's `previousSummary` says of the iteration (docs/loop.md#rule-3), made once. */
  readonly summary: IterationSummary;
}

/** An answer as read after its query: the declaration it makes, and a guard that failed after it. */
export interface ReadAnswer extends Answer {
  readonly decision: CompletionDecision;
  readonly guarded?: CheckFailure;
}

/**
 * Reads the answer an iteration is judged on: the guards after its query, then its declaration,
 * then its summary. A completion declared against a completion step with a prompt of its own is
 * asked again in that prompt, and that answer is the one read (docs/completion.md#completion-prompt).
 */
export async function readDeclaration(
  run: RunContext,
  turn: Turn,
  response: BackendResponse,
): Promise<ReadAnswer | Terminal> {
  const read = await readAfterQuery(run, turn, response);
  const { completionStep } = turn;
  const words = completionStep?.prompt;
  const declared = read.guarded === undefined && read.decision.decision === "complete";
  if (completionStep === undefined || words === undefined || !declared) return summarized(read);
  const asked = await askCompletion(run, turn, completionStep, words);
  const confirmed = await queryBackend(run, asked.query);
  if (confirmed.terminal) return confirmed.terminal;
  return summarized(await readAfterQuery(run, asked, confirmed.response));
}

async function readAfterQuery(
  run: RunContext,
  turn: Turn,
  response: BackendResponse,
): Promise<Omit<ReadAnswer, "summary">> {
  // Before closer's own git runs again: the git state put back (docs/integrity.md#git-state);
  // then what the OS sandbox refused the model's processes (docs/sandbox.md#refusals).
  const gitChanged = await guardGitState(run, turn.iteration);
  const refused = await guardSandbox(run, turn.iteration);
  const decision = await readChannels(run, turn, response);
  const guarded = gitChanged ?? refused;
  return { turn, response, decision, ...(guarded === undefined ? {} : { guarded }) };
}

/**
 * The answer with its summary, made once. A decision file's or a marker's word stands in for the
 * status only in an answer no check reads (docs/loop.md#rule-3).
 */
function summarized(read: Omit<ReadAnswer, "summary">): ReadAnswer {
  const { turn, response, decision, guarded } = read;
  const unchecked = guarded === undefined && decision.decision !== "complete";
  const summary = summarizeIteration(turn.iteration, response, unchecked ? { decision } : {});
  return { ...read, summary };
}

/**
 * Reads the model's declaration through the decision channels
 * (docs/completion.md#decision-channels) and records it: which channel spoke, whether a decision file's check
 * id matched, and the undecidable streak.
 */
async function readChannels(
  run: RunContext,
  turn: Turn,
  response: BackendResponse,
): Promise<CompletionDecision> {
  const after = await run.ports.readFile(run.decisionPath);
  const decision = decideAnswer(
    { response, decisionFileBefore: turn.decisionBefore, decisionFileAfter: after },
    {
      completionSignal: run.agent.registry.completionSignal,
      checkId: turn.checkId,
      previousUndecidableStreak: run.state.counters.undecidableStreak,
      maxUndecidable: run.agent.runner.maxUndecidable,
    },
  );
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
