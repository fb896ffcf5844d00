/**
 * The usage line a `command` program may print among its answer
 * (docs/backends.md#command-usage): `{"usage": {...}, "costUsd": N}`. closer
 * reads it for cost and tokens and leaves it out of the answer text.
 */
import { isPlainObject } from "../../plain-object.js";
import type { Usage } from "../../ports/backend.js";

/** What the program reported about its spending. */
export interface ReportedUsage {
  readonly usage?: Usage;
  readonly costUsd?: number;
}

const USAGE_LINE_KEYS: ReadonlySet<string> = new Set(["usage", "costUsd"]);

const USAGE_FIELDS = [
  "inputTokens",
  "outputTokens",
  "cacheReadTokens",
  "cacheCreationTokens",
] as const;

/**
 * The answer text without its usage lines, and what the last usage line
 * reported. A line counts only when it is a JSON object whose keys are
 * `usage` and/or `costUsd` with valid values (numbers, none negative);
 * any other line is part of the answer.
 */
export function takeUsageLine(stdout: string): { text: string; reported: ReportedUsage } {
  let reported: ReportedUsage = {};
  const kept: string[] = [];
  for (const line of stdout.split("\n")) {
    const usage = readUsageLine(line);
    if (usage === undefined) kept.push(line);
    else reported = usage;
  }
  return { text: kept.join("\n"), reported };
}

function readUsageLine(line: string): ReportedUsage | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length === 0 || keys.some((key) => !USAGE_LINE_KEYS.has(key))) return undefined;
  const costUsd = value.costUsd;
  if (costUsd !== undefined && !isAmount(costUsd)) return undefined;
  const usage = value.usage === undefined ? undefined : readUsage(value.usage);
  if (value.usage !== undefined && usage === undefined) return undefined;
  return {
    ...(usage === undefined ? {} : { usage }),
    ...(costUsd === undefined ? {} : { costUsd: costUsd as number }),
  };
}

function readUsage(value: unknown): Usage | undefined {
  if (!isPlainObject(value)) return undefined;
  if (Object.keys(value).some((key) => !(USAGE_FIELDS as readonly string[]).includes(key))) {
    return undefined;
  }
  const counts: Record<string, number> = {};
  for (const field of USAGE_FIELDS) {
    const count = value[field] ?? 0;
    if (!isAmount(count)) return undefined;
    counts[field] = count as number;
  }
  return counts as unknown as Usage;
}

function isAmount(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}
