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
  /** Timeouts or lost connections in a row before the run ends with `error`. */
  maxTimeoutRepeats: 2,
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
