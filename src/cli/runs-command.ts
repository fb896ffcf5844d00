import { Command, InvalidArgumentError } from "commander";
import type { RunsOptions } from "./actions/runs.js";

const DEFAULT_LIMIT = 20;

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
      const { runRuns } = await import("./actions/runs.js");
      await runRuns(options);
    });
}

function parseLimit(text: string): number {
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 0) {
    throw new InvalidArgumentError("a whole number, 0 or more");
  }
  return limit;
}
