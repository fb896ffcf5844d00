import { CloserError } from "../errors.js";
import { findRuns } from "../record/find-runs.js";
import { type Json, num, obj, str } from "../record/loose-json.js";
import { readRunJson } from "../record/run-folder-reader.js";

/** One line of `closer runs` (docs/observe.md#runs): what run.json says of a run. */
export interface RunSummary {
  readonly runId: string;
  readonly runDir: string;
  readonly agent: string;
  readonly task: string;
  /** A terminal state, `running`, or `damaged` for a run.json that cannot be read. */
  readonly status: string;
  readonly iterations: number;
  readonly costUsd: number;
  readonly durationMs: number;
  readonly startedAt: string;
}

export interface RunFilter {
  readonly status?: readonly string[];
  readonly agent?: string;
  /** Runs started at or after this time (ms since the epoch). */
  readonly sinceMs?: number;
  /** At most this many runs; 0 for all. */
  readonly limit: number;
}

export const DAMAGED = "damaged";

/** The runs of a runs folder, newest first, filtered and limited; reads run.json (and its marks) only. */
export async function listRuns(runsDir: string, filter: RunFilter): Promise<RunSummary[]> {
  const summaries = await Promise.all(
    (await findRuns(runsDir)).map(({ runId, runDir }) => summarize(runId, runDir)),
  );
  const kept = summaries.filter((summary) => matches(summary, filter));
  return filter.limit > 0 ? kept.slice(0, filter.limit) : kept;
}

function matches(summary: RunSummary, filter: RunFilter): boolean {
  if (filter.status !== undefined && !filter.status.includes(summary.status)) return false;
  if (filter.agent !== undefined && summary.agent !== filter.agent) return false;
  if (filter.sinceMs !== undefined) {
    const started = Date.parse(summary.startedAt);
    if (!(started >= filter.sinceMs)) return false;
  }
  return true;
}

async function summarize(runId: string, runDir: string): Promise<RunSummary> {
  const state: Json | undefined = obj(await readRunJson(runDir, "state"));
  const startedAt = str(state?.startedAt) ?? startOfRunId(runId) ?? "";
  const status = str(state?.status);
  if (state === undefined || status === undefined) {
    return {
      runId,
      runDir,
      agent: str(state?.agent) ?? "",
      task: "",
      status: DAMAGED,
      iterations: 0,
      costUsd: 0,
      durationMs: 0,
      startedAt,
    };
  }
  const lastSeen = str(state.endedAt) ?? str(state.updatedAt);
  const started = Date.parse(startedAt);
  const ended = lastSeen === undefined ? Number.NaN : Date.parse(lastSeen);
  return {
    runId,
    runDir,
    agent: str(state.agent) ?? "",
    task: str(obj(state.task)?.title) ?? "",
    status,
    iterations: num(state.iteration) ?? 0,
    costUsd: num(obj(state.totals)?.costUsd) ?? 0,
    durationMs:
      Number.isFinite(started) && Number.isFinite(ended) ? Math.max(0, ended - started) : 0,
    startedAt,
  };
}

/** `20300101-120000-ab12cd` → `2030-01-01T12:00:00.000Z`: a run id begins with its UTC start. */
function startOfRunId(runId: string): string | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(runId);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match;
  return `${year}-${month}-${day}T${hour}:${minute}:${second}.000Z`;
}

const RELATIVE = /^(\d+)\s*(m|h|d|w)$/;
const UNIT_MS: Readonly<Record<string, number>> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** `--since`: an ISO date or time, or a span back from `nowMs` (`30m`, `12h`, `7d`, `2w`). */
export function parseSince(text: string, nowMs: number): number {
  const relative = RELATIVE.exec(text.trim());
  if (relative) return nowMs - Number(relative[1]) * (UNIT_MS[relative[2] ?? "d"] ?? 0);
  const at = Date.parse(text);
  if (Number.isFinite(at)) return at;
  throw new CloserError("usage_error", `--since ${text} is neither a date nor a span`, {
    expected: "an ISO date or time (2030-01-01, 2030-01-01T12:00Z) or a span (30m, 12h, 7d, 2w)",
    found: text,
  });
}
