import { isCloserError } from "../errors.js";
import type { AgentResult } from "../ports/run-result.js";
import { prepareRun, startRun } from "./prepare-run.js";
import {
  emit,
  emitWritten,
  type RunContext,
  saveState,
  updateState,
  waitForState,
} from "./run-context.js";
import { runLoop } from "./run-loop.js";
import type { FinishRecord, FinishRun, RunSettings } from "./run-settings.js";
import { setupFailure } from "./setup-outcome.js";
import {
  abortSignalName,
  isRecordFailure,
  recordEndState,
  recordFailed,
  recordRunEnd,
  resultOf,
  type Terminal,
  terminalFromError,
  UNDECIDED_END,
} from "./terminal-state.js";

/**
 * Runs an agent on a task until the work is verifiably done or a terminal
 * state is reached (docs/loop.md), recording everything in the run folder.
 * `finish` runs after the loop, before the run's end is written, and its
 * events go to the same record (side effects, the worktree's end).
 *
 * Throws a CloserError only when the run can't start (a step the registry
 * lacks, a completed run to resume); once started, every outcome — including
 * a configuration error found mid-run, or a record that can no longer be
 * written (docs/record.md#record-failure) — is a result, and exactly one
 * place (`endRun`) writes the final run.json and `run-end` event.
 */
export async function runAgent(settings: RunSettings): Promise<AgentResult>;
export async function runAgent<Outcome extends AgentResult>(
  settings: RunSettings,
  finish: FinishRun<Outcome>,
): Promise<Outcome>;
export async function runAgent(
  settings: RunSettings,
  finish?: FinishRun<AgentResult>,
): Promise<AgentResult> {
  const run = prepareRun(settings);
  let terminal: Terminal = UNDECIDED_END;
  const stopRecordingAbort = recordAbort(run);
  try {
    await startRun(run, settings);
    // A failed setup ends the run before its baseline (docs/definition.md#setup).
    terminal =
      setupFailure(settings.setup ?? []) ??
      (await runLoop(run, "resumed" in settings.start && settings.start.finishOnly === true));
  } catch (error) {
    terminal = terminalFromError(error);
  }
  return await endRun(run, terminal, finish, stopRecordingAbort);
}

/**
 * After the loop: the side effects (`finish`), then the final run.json and
 * `run-end`. A record that can't be written ends the run as `record_error`
 * (docs/record.md#record-failure), with no side effects after the failure:
 * nothing of them could be kept on record.
 */
async function endRun(
  run: RunContext,
  loopEnd: Terminal,
  finish: FinishRun<AgentResult> | undefined,
  stopRecordingAbort: () => void,
): Promise<AgentResult> {
  let terminal = loopEnd;
  let outcome: AgentResult | undefined;
  let bug: { error: unknown } | undefined;
  try {
    if (finish !== undefined && !isRecordFailure(terminal)) {
      // run.json says how the run ended before anything after the loop starts, so an attempt
      // that dies during the side effects is on record as ended (docs/integrity.md#resume).
      await recordEndState(run, terminal);
      outcome = await finish(resultOf(run, terminal), finishRecord(run));
    }
  } catch (error) {
    if (isRecordWriteError(error)) terminal = recordFailed(error);
    else bug = { error };
    outcome = undefined;
  }
  stopRecordingAbort();
  if (bug === undefined && !isRecordFailure(terminal)) {
    // The plugins see the result the caller gets; a required one that fails here makes it `error`.
    const failed = await tellPluginsTheEnd(run, outcome ?? resultOf(run, terminal));
    if (failed !== undefined) {
      terminal = failed;
      outcome = undefined;
    }
  }
  // The end is written where it can be; a record that can't take it ends the run as record_error.
  await recordRunEnd(run, terminal).catch((error: unknown) => {
    if (isRecordFailure(terminal)) return;
    terminal = recordFailed(error);
    outcome = undefined;
  });
  await run.plugins.drain(); // their record sinks have the run's events, run-end included
  if (bug !== undefined) throw bug.error;
  return outcome ?? resultOf(run, terminal);
}

/** The plugins' `onEnd` hooks (docs/plugins.md#hooks); the end of the run when a required one failed. */
async function tellPluginsTheEnd(
  run: RunContext,
  result: AgentResult,
): Promise<Terminal | undefined> {
  try {
    await run.plugins.call("onEnd", { result });
    return undefined;
  } catch (error) {
    return terminalFromError(error);
  }
}

function isRecordWriteError(error: unknown): boolean {
  return isCloserError(error) && error.code === "record_error";
}

/** The `abort` event, when the run's signal fires, naming the process signal behind it (docs/loop.md#signals). */
function recordAbort(run: RunContext): () => void {
  const onAbort = () => {
    const signal = abortSignalName(run.signal);
    emit(run, {
      type: "abort",
      iteration: run.state.iteration,
      ...(signal === undefined ? {} : { signal }),
    });
  };
  if (run.signal.aborted) {
    onAbort();
    return () => {};
  }
  run.signal.addEventListener("abort", onAbort, { once: true });
  return () => run.signal.removeEventListener("abort", onAbort);
}

function finishRecord(run: RunContext): FinishRecord {
  return {
    alreadyDone: run.state.sideEffects,
    emit: (body) => emitWritten(run, body),
    async recordEffect(effectKey) {
      if (run.state.sideEffects.includes(effectKey)) return;
      updateState(run, { sideEffects: [...run.state.sideEffects, effectKey] });
      saveState(run);
      await waitForState(run);
    },
  };
}
