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
import type { AgentResult, FinishRecord, FinishRun, RunSettings } from "./run-settings.js";
import {
  abortSignalName,
  recordEndState,
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
 * a configuration error found mid-run — is a result, and exactly one
 * `finally` writes the final run.json and `run-end` event.
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
  const run = await prepareRun(settings);
  let terminal: Terminal = UNDECIDED_END;
  let outcome: AgentResult | undefined;
  const stopRecordingAbort = recordAbort(run);
  try {
    await startRun(run, settings);
    terminal = await runLoop(run);
  } catch (error) {
    terminal = terminalFromError(error);
  } finally {
    try {
      if (finish !== undefined) {
        // run.json says how the run ended before anything after the loop starts, so an attempt
        // that dies during the side effects is on record as ended (docs/integrity.md#resume).
        await recordEndState(run, terminal);
        outcome = await finish(resultOf(run, terminal), finishRecord(run));
      }
    } finally {
      stopRecordingAbort();
      await recordRunEnd(run, terminal);
    }
  }
  return outcome ?? resultOf(run, terminal);
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
