/** Limits of the waits and repeats that don't count against the work (docs/loop.md#backoff). */
export const BACKOFF_LIMITS = {
  /** First wait after a rate limit without a reset time; doubles each time. */
  baseMs: 2_000,
  /** Longest computed wait. */
  maxMs: 300_000,
  /** Longest wait for a reset time the backend gave (a usage window can be hours away). */
  maxResetWaitMs: 6 * 3_600_000,
  /** Rate-limit or overload answers in a row before the run ends with `error`. */
  maxRateLimitWaits: 10,
  /** Timeouts in a row before the run ends with `error`. */
  maxTimeoutRepeats: 2,
  /** First wait after an overloaded or unreachable API; doubles each time, with jitter. */
  transientBaseMs: 5_000,
  /** Longest single wait for an overloaded or unreachable API. */
  transientMaxMs: 120_000,
} as const;

/**
 * The wait before repeat number `attempt` (0-based): the backend's reset time
 * when it gave one, else exponential from `baseMs`, both capped.
 */
export function backoffMs(attempt: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) {
    return Math.min(retryAfterMs, BACKOFF_LIMITS.maxResetWaitMs);
  }
  return Math.min(BACKOFF_LIMITS.baseMs * 2 ** attempt, BACKOFF_LIMITS.maxMs);
}

/**
 * The wait before repeat number `attempt` (0-based) after an overloaded or
 * unreachable model API: the `retry-after` it gave, else exponential from
 * `transientBaseMs` with ±50 % jitter (`random` in [0, 1); 0.5 is none), capped.
 */
export function transientBackoffMs(
  attempt: number,
  retryAfterMs: number | undefined,
  random: number,
): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) {
    return Math.min(retryAfterMs, BACKOFF_LIMITS.maxResetWaitMs);
  }
  const exponential = Math.min(
    BACKOFF_LIMITS.transientBaseMs * 2 ** attempt,
    BACKOFF_LIMITS.transientMaxMs,
  );
  return Math.round(exponential * (0.5 + random));
}
