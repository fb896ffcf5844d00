/** The replay's clock and record (docs/replay.md#replay): nothing waits, nothing is written. */
import type { RunEvent } from "../ports/events.js";
import type { Clock, RecordSink } from "../ports/loop-ports.js";

/** A record sink that keeps the events it is given. */
export interface MemoryRecord extends RecordSink {
  readonly events: RunEvent[];
}

export interface VirtualClock extends Clock {
  advance(ms: number): void;
}

/** Time moves only by the recorded durations and the waits asked for; a wait returns at once. */
export function makeVirtualClock(startMs: number): VirtualClock {
  let nowMs = startMs;
  let ids = 0;
  return {
    now: () => nowMs,
    advance(ms) {
      nowMs += Math.max(0, ms);
    },
    async sleep(ms, signal) {
      if (signal?.aborted) throw new DOMException("aborted", "AbortError");
      nowMs += Math.max(0, ms);
    },
    randomId: () => `replay${(ids++).toString(36)}`,
    random: () => 0.5,
  };
}

/** A record that keeps the events in memory and writes nothing. */
export function makeMemoryRecord(runDir: string): MemoryRecord {
  const events: RunEvent[] = [];
  return {
    runDir,
    events,
    async emit(event) {
      events.push(event);
    },
    saveState: async () => {},
    savePrompt: async () => {},
    saveTranscript: async () => {},
    flush: async () => {},
  };
}
