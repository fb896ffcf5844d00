import { Command, InvalidArgumentError } from "commander";
import { formatCost, formatDuration, formatStarted, shorten } from "../observe/format-run.js";
import { listRuns, parseSince, type RunSummary } from "../observe/list-runs.js";
import { locateRunsDir } from "../observe/locate-runs-dir.js";

interface RunsOptions {
  readonly cwd?: string;
  readonly runsDir?: string;
  readonly agent?: string;
  readonly status?: string;
  readonly since?: string;
  readonly limit: number;
  readonly json?: boolean;
}

const DEFAULT_LIMIT = 20;
const TASK_WIDTH = 40;

const EXAMPLES = `
Examples:
  $ closer runs                          the last 20 runs, newest first
  $ closer runs --status completed,error only runs that ended so
  $ closer runs --since 7d --limit 0     every run of the last 7 days
  $ closer runs --agent fixer --json     the runs of one agent as a JSON array

A run whose run.json cannot be read is listed as damaged. closer show <run-id> tells one run.`;

/** `closer runs` (docs/observe.md#runs): the past runs of the runs folder, newest first. */
export function makeRunsCommand(): Command {
  return new Command("runs")
    .description("List past runs, newest first: agent, task, status, iterations, cost, duration.")
    .option("--cwd <dir>", "the project folder (default: the current directory)")
    .option(
      "--runs-dir <dir>",
      "where run folders are (default: closer/runs inside the git folder)",
    )
    .option("--agent <name>", "only this agent's runs (and its runner.logging.runsDir)")
    .option("--status <list>", "only runs in these states, comma-separated (e.g. completed,error)")
    .option("--since <when>", "only runs started since an ISO date/time or a span (30m, 12h, 7d)")
    .option("--limit <n>", "at most n runs; 0 for all", parseLimit, DEFAULT_LIMIT)
    .option("--json", "print the runs as a JSON array")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (options: RunsOptions) => {
      const cwd = options.cwd ?? process.cwd();
      const runsDir = await locateRunsDir({
        cwd,
        ...(options.runsDir === undefined ? {} : { runsDir: options.runsDir }),
        ...(options.agent === undefined ? {} : { agent: options.agent }),
      });
      const runs = await listRuns(runsDir, {
        limit: options.limit,
        ...(options.agent === undefined ? {} : { agent: options.agent }),
        ...(options.status === undefined ? {} : { status: splitList(options.status) }),
        ...(options.since === undefined ? {} : { sinceMs: parseSince(options.since, Date.now()) }),
      });
      process.stdout.write(
        options.json ? `${JSON.stringify(runs, null, 2)}\n` : describeRuns(runs, runsDir),
      );
    });
}

function parseLimit(text: string): number {
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 0) {
    throw new InvalidArgumentError("a whole number, 0 or more");
  }
  return limit;
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
