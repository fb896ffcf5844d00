import type { BackendError } from "../ports/backend.js";
import { BACKOFF_LIMITS, backoffMs, transientBackoffMs } from "./backoff.js";
import type { Query } from "./query.js";
import { emit, type RunContext, updateState } from "./run-context.js";
import { abortedWhen, failed, stopped, type Terminal } from "./terminal-state.js";

/** How the loop answers a failed query (docs/loop.md#error-classes). */
/**
 * `wait-rate-limit`: wait (the reset time, or backoff) and repeat, 10 times at most;
 * `wait-out`: wait with jitter and repeat, up to runner.budgets.transientWaitMs;
 * `repeat`: repeat after a short backoff, twice at most.
 */
export type Recovery = "wait-rate-limit" | "wait-out" | "repeat" | "new-session" | "accept" | "end";

/** An overloaded or unreachable model API: waited out up to runner.budgets.transientWaitMs. */
const TRANSIENT_KINDS: ReadonlySet<BackendError["kind"]> = new Set([
  "overloaded",
  "server_error",
  "connection",
]);

export function recoveryFor(error: BackendError): Recovery {
  if (error.kind === "rate_limit") return "wait-rate-limit";
  if (TRANSIENT_KINDS.has(error.kind)) return "wait-out";
  if (error.kind === "timeout") return "repeat";
  if (error.kind === "session_expired") return "new-session";
  // The query ran out of turns: what it did stands, the loop reads its declaration as usual.
  if (error.kind === "max_turns") return "accept";
  return error.retryable ? "repeat" : "end";
}

export function terminalFor(error: BackendError): Terminal {
  const reason = `backend ${error.kind}: ${error.message}`;
  if (error.kind === "aborted") return stopped("aborted", reason);
  if (error.kind === "max_budget") return stopped("budget_exhausted", reason);
  if (error.kind === "auth") return failed("auth_error", reason);
  if (error.kind === "config") return failed("config_error", reason);
  return failed("backend_error", reason);
}

/** A wait before the query is sent again. */
export interface RepeatWait {
  readonly waitMs: number;
  /** 0-based: how many waits of this kind came before. */
  readonly attempt: number;
}

/**
 * The repeats of one query: each failure gets its wait, or the end of the run
 * when its kind has had enough — 10 rate-limit waits, 2 timeout repeats, or
 * waits for an overloaded or unreachable API adding up to
 * `runner.budgets.transientWaitMs` (docs/loop.md#waiting-out).
 */
export function makeRepeats(
  run: RunContext,
  query: Query,
): { next(error: BackendError, recovery: Recovery): RepeatWait | Terminal } {
  let rateLimitWaits = 0;
  let repeats = 0;
  const waitedOut = { attempts: 0, waitedMs: 0 };
  return {
    next(error, recovery) {
      if (recovery === "wait-out") {
        const waitMs = transientBackoffMs(
          waitedOut.attempts,
          error.retryAfterMs,
          run.ports.clock.random(),
        );
        if (waitedOut.waitedMs + waitMs > run.agent.runner.budgets.transientWaitMs) {
          return endWaitingOut(run, query, error, waitedOut.waitedMs);
        }
        waitedOut.waitedMs += waitMs;
        return { waitMs, attempt: waitedOut.attempts++ };
      }
      const rateLimited = recovery === "wait-rate-limit";
      const count = rateLimited ? rateLimitWaits++ : repeats++;
      const limit = rateLimited
        ? BACKOFF_LIMITS.maxRateLimitWaits
        : BACKOFF_LIMITS.maxTimeoutRepeats;
      if (count >= limit) {
        return failed(
          "backend_error",
          `backend ${error.kind} ${count + 1} times in a row: ${error.message}`,
        );
      }
      const retryAfterMs = rateLimited ? error.retryAfterMs : undefined;
      return { waitMs: backoffMs(count, retryAfterMs), attempt: count };
    },
  };
}

/**
 * The model API stayed overloaded or unreachable past the horizon: the run
 * ends with `error`, and run.json is left at the iteration before this one,
 * so `--resume` sends the same iteration again.
 */
function endWaitingOut(
  run: RunContext,
  query: Query,
  error: BackendError,
  waitedMs: number,
): Terminal {
  updateState(run, { iteration: query.iteration - 1 });
  const horizon = run.agent.runner.budgets.transientWaitMs;
  return failed(
    "backend_error",
    `backend ${error.kind} after waiting ${Math.round(waitedMs / 1000)} s (runner.budgets.transientWaitMs is ${horizon} ms): ${error.message} — resume this iteration later with: closer run ${run.agent.name} --resume ${run.runId}`,
  );
}

/** Waits before a repeat, within the wall-time budget; an abort ends the wait at once. */
export async function waitBeforeRepeat(
  run: RunContext,
  iteration: number,
  error: BackendError,
  { waitMs, attempt }: RepeatWait,
): Promise<Terminal | undefined> {
  const { maxWallTimeMs } = run.agent.runner.budgets;
  const elapsedMs = run.ports.clock.now() - run.startedAtMs;
  if (maxWallTimeMs !== undefined && elapsedMs + waitMs > maxWallTimeMs) {
    return stopped(
      "budget_exhausted",
      `waiting ${waitMs} ms after a backend ${error.kind} would exceed the wall-time budget`,
    );
  }
  emit(run, {
    type: "backend-wait",
    iteration,
    reason: error.kind,
    waitMs,
    attempt: attempt + 1,
  });
  try {
    await run.ports.clock.sleep(waitMs, run.signal);
  } catch {
    return abortedWhen(run, "while waiting for the backend");
  }
  return undefined;
}
