import { describe, expect, it } from "vitest";
import { BACKOFF_LIMITS, backoffMs, transientBackoffMs } from "./backoff.js";

describe("backoffMs", () => {
  it("doubles from the base wait and stops growing at the cap", () => {
    const waits = Array.from({ length: 12 }, (_, attempt) => backoffMs(attempt));
    expect(waits[0]).toBe(BACKOFF_LIMITS.baseMs);
    for (let index = 1; index < waits.length; index += 1) {
      const previous = waits[index - 1] ?? 0;
      expect(waits[index]).toBe(Math.min(previous * 2, BACKOFF_LIMITS.maxMs));
    }
  });

  it("honours the backend's reset time, up to its own cap", () => {
    expect(backoffMs(5, 42_000)).toBe(42_000);
    expect(backoffMs(0, 10 * BACKOFF_LIMITS.maxResetWaitMs)).toBe(BACKOFF_LIMITS.maxResetWaitMs);
  });
});

describe("transientBackoffMs", () => {
  it("doubles from its base with jitter of half either way, and caps the exponent", () => {
    expect(transientBackoffMs(0, undefined, 0.5)).toBe(BACKOFF_LIMITS.transientBaseMs);
    expect(transientBackoffMs(1, undefined, 0.5)).toBe(2 * BACKOFF_LIMITS.transientBaseMs);
    expect(transientBackoffMs(1, undefined, 0)).toBe(BACKOFF_LIMITS.transientBaseMs);
    expect(transientBackoffMs(1, undefined, 0.999)).toBeLessThan(
      3 * BACKOFF_LIMITS.transientBaseMs,
    );
    expect(transientBackoffMs(30, undefined, 0.5)).toBe(BACKOFF_LIMITS.transientMaxMs);
  });

  it("honours the API's retry-after, without jitter", () => {
    expect(transientBackoffMs(4, 7_000, 0.9)).toBe(7_000);
  });
});
