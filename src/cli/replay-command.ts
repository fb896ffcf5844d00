import { stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { Command } from "commander";
import { LAST_RUN, resolveRunId } from "../observe/find-runs.js";
import { locateRunsDir } from "../observe/locate-runs-dir.js";
import { describeDifference } from "../replay/compare-trails.js";
import { replayRun } from "../replay/replay-run.js";

interface ReplayFlags {
  readonly definition?: string;
  readonly runsDir?: string;
  readonly cwd?: string;
  readonly json?: boolean;
}

const EXAMPLES = `
Examples:
  $ closer replay 20300101-120000-ab12cd                          the run's decisions made again by this closer
  $ closer replay 20300101-120000-ab12cd --definition .agent/fixer  ...with the agent folder as it is now
  $ closer replay 20300101-120000-ab12cd --json                   {identical, differences}

Nothing is executed: the model's answers and the checks' outcomes come from the record.
Exit 0: the same decisions; 1: they differ (each difference is printed); 2: the run cannot be replayed.`;

export function makeReplayCommand(): Command {
  return new Command("replay")
    .description(
      "Re-run closer's decisions on a recorded run with the current code (and agent folder), " +
        "and print where they differ: decisions, checks, guards, retries, the terminal state.",
    )
    .argument(
      "<run-id>",
      "the run to replay: a run id (or a prefix of one) in the runs dir, `last`, or a run folder's path",
    )
    .option("--definition <dir>", "decide with this agent folder instead of the run's own snapshot")
    .option(
      "--runs-dir <dir>",
      "where run folders are (default: closer/runs inside the git folder)",
    )
    .option("--cwd <dir>", "the project folder (default: the current directory)")
    .option("--json", "print {identical, differences} as JSON")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (runId: string, flags: ReplayFlags) => {
      process.exitCode = await replayCommand(runId, flags);
    });
}

async function replayCommand(wanted: string, flags: ReplayFlags): Promise<number> {
  const runDir = await findRunDir(wanted, flags);
  const runId = basename(runDir);
  const result = await replayRun({
    runDir,
    ...(flags.definition === undefined ? {} : { definitionDir: resolve(flags.definition) }),
  });
  if (flags.json === true) {
    const { identical, differences } = result;
    process.stdout.write(`${JSON.stringify({ identical, differences }, null, 2)}\n`);
  } else if (result.identical) {
    process.stdout.write(
      `replay of ${runId}: the same ${result.replayed.length} decisions as recorded\n`,
    );
  } else {
    const lines = result.differences.map((difference) => `  ${describeDifference(difference)}`);
    process.stdout.write(
      `replay of ${runId}: ${result.differences.length} difference(s) (recorded → replayed)\n${lines.join("\n")}\n`,
    );
  }
  return result.identical ? 0 : 1;
}

/** The run's folder: a run id, a prefix of one or `last` in the runs folder, else a path to one. */
async function findRunDir(runId: string, flags: ReplayFlags): Promise<string> {
  const runsDir = await locateRunsDir({
    cwd: flags.cwd ?? process.cwd(),
    ...(flags.runsDir === undefined ? {} : { runsDir: flags.runsDir }),
  });
  if (
    runId !== LAST_RUN &&
    (await isFolder(resolve(runId))) &&
    !(await isFolder(join(runsDir, runId)))
  ) {
    return resolve(runId);
  }
  return (await resolveRunId(runsDir, runId)).runDir;
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (found) => found.isDirectory(),
    () => false,
  );
}
