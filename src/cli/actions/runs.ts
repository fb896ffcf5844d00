import { formatCost, formatDuration, formatStarted, shorten } from "../../observe/format-run.js";
import { listRuns, parseSince, type RunSummary } from "../../observe/list-runs.js";
import { locateRunsDir } from "../../observe/locate-runs-dir.js";

export interface RunsOptions {
  readonly cwd?: string;
  readonly runsDir?: string;
  readonly agent?: string;
  readonly status?: string;
  readonly since?: string;
  readonly limit: number;
  readonly json?: boolean;
}

const TASK_WIDTH = 40;

/** `closer runs` (docs/observe.md#runs): the past runs of the runs folder, newest first. */
export async function runRuns(options: RunsOptions): Promise<void> {
  const cwd = options.cwd ?? process.cwd();
  const runsDir = await locateRunsDir({ cwd, runsDir: options.runsDir, agent: options.agent });
  const runs = await listRuns(runsDir, {
    limit: options.limit,
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    ...(options.status === undefined ? {} : { status: splitList(options.status) }),
    ...(options.since === undefined ? {} : { sinceMs: parseSince(options.since, Date.now()) }),
  });
  process.stdout.write(
    options.json ? `${JSON.stringify(runs, null, 2)}\n` : describeRuns(runs, runsDir),
  );
}

function splitList(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

const HEADER = ["RUN", "AGENT", "TASK", "STATUS", "ITER", "COST", "DURATION", "STARTED"];

function describeRuns(runs: readonly RunSummary[], runsDir: string): string {
  if (runs.length === 0) return `No runs in ${runsDir} match.\n`;
  const rows = runs.map((run) => [
    run.runId,
    run.agent,
    shorten(run.task, TASK_WIDTH),
    run.status,
    String(run.iterations),
    formatCost(run.costUsd),
    formatDuration(run.durationMs),
    formatStarted(run.startedAt),
  ]);
  const widths = HEADER.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return `${[line(HEADER), ...rows.map(line)].join("\n")}\n`;
}
