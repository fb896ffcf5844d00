import type { TokenUsage } from "../run-view.js";

/** Dollars with four decimals below a dollar (a query often costs cents), two above. */
export function formatCost(costUsd: number): string {
  const cost = Number.isFinite(costUsd) ? costUsd : 0;
  return `$${cost.toFixed(Math.abs(cost) < 1 ? 4 : 2)}`;
}

export function formatDuration(durationMs: number | undefined): string {
  if (durationMs === undefined || !Number.isFinite(durationMs) || durationMs < 0) return "–";
  if (durationMs < 1000) return `${Math.round(durationMs)} ms`;
  const seconds = Math.round(durationMs / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}

export function formatCount(count: number): string {
  return (Number.isFinite(count) ? count : 0).toLocaleString("en-US");
}

export function formatTokens(usage: TokenUsage): string {
  const cached =
    usage.cacheReadTokens + usage.cacheCreationTokens > 0
      ? ` · cache ${formatCount(usage.cacheReadTokens)} read, ${formatCount(usage.cacheCreationTokens)} written`
      : "";
  return `${formatCount(usage.inputTokens)} in · ${formatCount(usage.outputTokens)} out${cached}`;
}
