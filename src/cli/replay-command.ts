import { Command } from "commander";
import type { ReplayFlags } from "./actions/replay.js";

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
      const { replayRecordedRun } = await import("./actions/replay.js");
      process.exitCode = await replayRecordedRun(runId, flags);
    });
}
