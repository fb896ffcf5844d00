import type { Clock } from "../ports/loop-ports.js";

/** A clock whose time moves only when the run sleeps or the test says so. */
export interface TestClock extends Clock {
  /** Every wait the run asked for, in milliseconds, in order. */
  readonly sleeps: readonly number[];
  /** Move time forward (e.g. inside a scripted turn, to spend wall-time budget). */
  advance(ms: number): void;
}

/**
 * A Clock for tests: `sleep` returns at once but moves `now` forward, so a run
 * that backs off for minutes finishes in microseconds and the waits can be
 * asserted. Ids are `id-1`, `id-2`, … unless a generator is given; `random`
 * is 0.5 (no jitter either way) unless one is given.
 */
export function makeTestClock(
  options: { startMs?: number; randomId?: () => string; random?: () => number } = {},
): TestClock {
  let nowMs = options.startMs ?? Date.UTC(2030, 0, 1);
  let idCount = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => nowMs,
    advance: (ms) => {
      nowMs += ms;
    },
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw abortError();
      sleeps.push(ms);
      nowMs += ms;
    },
    randomId:
      options.randomId ??
      (() => {
        idCount += 1;
        return `id-${idCount}`;
      }),
    random: options.random ?? (() => 0.5),
  };
}

function abortError(): Error {
  const error = new Error("The operation was aborted");
  error.name = "AbortError";
  return error;
}
