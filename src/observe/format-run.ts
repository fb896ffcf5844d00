/** How `closer runs` and `closer show` write times, costs and texts. */

/** `$0.0123` under a dollar, `$1.23` above. */
export function formatCost(costUsd: number): string {
  return `$${costUsd.toFixed(costUsd < 1 ? 4 : 2)}`;
}

/** `850ms`, `12.3s`, `4m 05s`, `2h 03m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.round(ms / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  if (minutes < 60) return `${minutes}m ${String(totalSeconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/** `2030-01-01 12:00` (UTC), or the text as it is when it is not a time. */
export function formatStarted(iso: string): string {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return iso;
  return `${new Date(at).toISOString().slice(0, 16).replace("T", " ")}Z`;
}

/** One line of at most `max` characters. */
export function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, Math.max(0, max - 1))}…`;
}

/** The last `count` lines of a text, with a line saying how many came before. */
export function lastLines(text: string, count: number): string {
  const lines = text.trimEnd().split("\n");
  if (lines.length <= count) return lines.join("\n");
  return [`… (${lines.length - count} earlier lines)`, ...lines.slice(-count)].join("\n");
}
