import { prepareRun, startRun } from "./prepare-run.js";
import { runLoop } from "./run-loop.js";
import type { AgentResult, RunOptions } from "./run-options.js";
import {
  finishRun,
  resultOf,
  type Terminal,
  terminalFromError,
  UNDECIDED_END,
} from "./terminal-state.js";

/**
 * Runs an agent on a task until the work is verifiably done or a terminal
 * state is reached (SPEC §3), recording everything in the run folder.
 *
 * Throws a CloserError only when the run can't start (no task, a completed
 * run to resume, a bad decision path); once started, every outcome —
 * including a configuration error found mid-run — is a result, and exactly
 * one `finally` writes the final run.json and `run-end` event.
 */
export async function runAgent(options: RunOptions): Promise<AgentResult> {
  const run = await prepareRun(options);
  let terminal: Terminal = UNDECIDED_END;
  try {
    await startRun(run, options.resume !== undefined);
    terminal = await runLoop(run);
  } catch (error) {
    terminal = terminalFromError(error);
  } finally {
    await finishRun(run, terminal);
  }
  return resultOf(run, terminal);
}

/** Seed 003's Runner: the same as `runAgent`, for callers that prefer an object. */
export class AgentRunner {
  run(options: RunOptions): Promise<AgentResult> {
    return runAgent(options);
  }
}
