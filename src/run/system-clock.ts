import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { Clock } from "../ports/loop-ports.js";

/** The real clock: wall time, real waits (cancellable), random ids. */
export function makeSystemClock(): Clock {
  return {
    now: () => Date.now(),
    sleep: async (ms, signal) => {
      await delay(ms, undefined, signal ? { signal } : undefined);
    },
    randomId: () => randomUUID().replaceAll("-", "").slice(0, 16),
    random: Math.random,
  };
}
