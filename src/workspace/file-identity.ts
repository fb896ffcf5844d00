import type { BigIntStats } from "node:fs";

/**
 * How long after its last change a file's identity is trusted, by the
 * resolution of its change time: a file system that keeps nanoseconds stamps
 * them from a clock that ticks every few milliseconds; one that keeps whole
 * seconds (or two, like FAT) needs more.
 */
const SETTLED_MS = 50;
const SETTLED_WHOLE_SECONDS_MS = 2_100;

/**
 * A file's identity (device, inode, size, modification and change time, to
 * the nanosecond) when it may stand for the content read now: the same
 * identity later is the same content (docs/integrity.md#file-identity).
 * Undefined when the file changed so recently that another write within the
 * same tick of the file system's clock could leave its times as they are.
 */
export function settledIdentity(stats: BigIntStats, nowMs: number): string | undefined {
  const wholeSeconds = stats.ctimeNs % 1_000_000_000n === 0n;
  const settledMs = wholeSeconds ? SETTLED_WHOLE_SECONDS_MS : SETTLED_MS;
  if (Number(stats.ctimeMs) > nowMs - settledMs) return undefined;
  return [stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].join(":");
}

/** The same identity, settled or not: what a later look compares with a kept one. */
export function identityOf(stats: BigIntStats): string {
  return [stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].join(":");
}
