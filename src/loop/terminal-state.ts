import { type CloserErrorCode, isCloserError } from "../errors.js";
import type { TerminalStatus } from "../ports/events.js";
import type { AgentResult } from "../ports/run-result.js";
import {
  emitWritten,
  isoTime,
  type RunContext,
  saveState,
  updateState,
  waitForState,
} from "./run-context.js";

/** How the loop ended (docs/loop.md#rule-6): the only way out of it. */
export interface Terminal {
  readonly status: TerminalStatus;
  readonly reason: string;
  /** For `error`: what kind of error, for the CLI's exit code. */
  readonly errorCode?: CloserErrorCode;
}

export function isTerminal(value: object): value is Terminal {
  return "status" in value && "reason" in value;
}

export function completed(reason: string): Terminal {
  return { status: "completed", reason };
}

export function stopped(
  status: Exclude<TerminalStatus, "completed" | "error">,
  reason: string,
): Terminal {
  return { status, reason };
}

export function failed(errorCode: CloserErrorCode, reason: string): Terminal {
  return { status: "error", reason, errorCode };
}

/**
 * The process signal behind an abort, when the abort names one: the CLI aborts a run with the
 * signal's name as the reason (docs/loop.md#signals).
 */
export function abortSignalName(signal: AbortSignal): string | undefined {
  const reason: unknown = signal.reason;
  return typeof reason === "string" && /^SIG[A-Z0-9]+$/.test(reason) ? reason : undefined;
}

/** The end of a run whose abort signal fired, saying when (`during the checks of iteration 2`). */
export function abortedWhen(run: RunContext, when: string): Terminal {
  const by = abortSignalName(run.signal);
  return stopped("aborted", `the run was aborted${by === undefined ? "" : ` by ${by}`} ${when}`);
}

/** An exception that escaped a stage: a configuration error, or a bug. */
export function terminalFromError(error: unknown): Terminal {
  if (isCloserError(error)) return failed(error.code, error.describe());
  const message = error instanceof Error ? error.message : String(error);
  return failed("internal_error", `unexpected error: ${message}`);
}

/** Placeholder the single `finally` sees when even the end could not be decided. */
export const UNDECIDED_END: Terminal = failed(
  "internal_error",
  "the run ended without a terminal state",
);

/** Writes how the run ended into run.json (status, reason, end time). */
export async function recordEndState(run: RunContext, terminal: Terminal): Promise<void> {
  updateState(run, { status: terminal.status, reason: terminal.reason, endedAt: isoTime(run) });
  saveState(run);
  await waitForState(run);
}

/**
 * The one place that writes the end of a run (docs/style.md#principle-12): the
 * final run.json and the `run-end` event.
 */
export async function recordRunEnd(run: RunContext, terminal: Terminal): Promise<void> {
  await recordEndState(run, terminal);
  const { iteration, totals } = run.state;
  await emitWritten(run, {
    type: "run-end",
    status: terminal.status,
    success: terminal.status === "completed",
    reason: terminal.reason,
    iterations: iteration,
    costUsd: totals.costUsd,
  });
  await run.ports.record.flush?.();
}

/** A write of the record that failed (docs/record.md#record-failure). */
export function isRecordFailure(terminal: Terminal): boolean {
  return terminal.status === "error" && terminal.errorCode === "record_error";
}

/**
 * The end of a run whose record failed to be written at its end: the run
 * cannot be trusted as completed, whatever the loop decided, since its
 * record does not say so (docs/record.md#record-failure).
 */
export function recordFailed(error: unknown): Terminal {
  const terminal = terminalFromError(error);
  return terminal.errorCode === "record_error" ? terminal : failed("record_error", terminal.reason);
}

export function resultOf(run: RunContext, terminal: Terminal): AgentResult {
  const { iteration, totals, worktree, warnings, completion, counters, flaky, review, sandbox } =
    run.state;
  return {
    success: terminal.status === "completed",
    status: terminal.status,
    reason: terminal.reason,
    iterations: iteration,
    runId: run.runId,
    runDir: run.runDir,
    costUsd: totals.costUsd,
    costByReason: totals.costByReason ?? {},
    ...(worktree === undefined ? {} : { worktree }),
    ...(terminal.errorCode === undefined ? {} : { errorCode: terminal.errorCode }),
    warnings,
    ...(terminal.status === "completed" && completion !== undefined ? { completion } : {}),
    refutedDeclarations: counters.refutedDeclarations ?? 0,
    flaky: flaky ?? [],
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(review === undefined ? {} : { reviewCostUsd: review.costUsd }),
    ...(terminal.status === "blocked" && review?.last !== undefined ? { review: review.last } : {}),
  };
}
