/**
 * Where two decision trails differ (docs/replay.md#what-is-compared): the
 * entries of each iteration are matched by what they are about, in order,
 * so one changed verdict is one difference, not a shifted tail.
 */
import type { TrailEntry } from "./decision-trail.js";

export interface TrailDifference {
  readonly iteration: number | "end";
  readonly what: string;
  /** Absent: the recorded run made no such decision. */
  readonly recorded?: string;
  /** Absent: the replay made no such decision. */
  readonly replayed?: string;
}

export function compareTrails(
  recorded: readonly TrailEntry[],
  replayed: readonly TrailEntry[],
): TrailDifference[] {
  const differences: TrailDifference[] = [];
  const before = keyed(recorded);
  const after = keyed(replayed);
  const keys = [...new Set([...before.keys(), ...after.keys()])];
  for (const key of keys) {
    const old = before.get(key);
    const now = after.get(key);
    if (old?.value === now?.value) continue;
    const entry = old ?? now;
    if (entry === undefined) continue;
    differences.push({
      iteration: entry.iteration,
      what: entry.what,
      ...(old === undefined ? {} : { recorded: old.value }),
      ...(now === undefined ? {} : { replayed: now.value }),
    });
  }
  return differences.sort((a, b) => order(a.iteration) - order(b.iteration));
}

/** `iteration 3: retry pattern test-failed → lint-failed` */
export function describeDifference(difference: TrailDifference): string {
  const where = difference.iteration === "end" ? "end" : `iteration ${difference.iteration}`;
  return `${where}: ${difference.what} ${difference.recorded ?? "(none)"} → ${difference.replayed ?? "(none)"}`;
}

function keyed(entries: readonly TrailEntry[]): Map<string, TrailEntry> {
  const map = new Map<string, TrailEntry>();
  const seen = new Map<string, number>();
  for (const entry of entries) {
    const base = `${entry.iteration}\u0000${entry.what}`;
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    map.set(`${base}\u0000${count}`, entry);
  }
  return map;
}

function order(iteration: number | "end"): number {
  return iteration === "end" ? Number.MAX_SAFE_INTEGER : iteration;
}
