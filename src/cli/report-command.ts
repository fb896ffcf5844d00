import { Command } from "commander";
import type { ReportOptions } from "./actions/report.js";

const EXAMPLES = `
Examples:
  $ closer report last                         the latest run, as report.html in its run folder
  $ closer report 20300101-120000-ab12cd -o run.html
  $ closer report last --runs-dir ./runs

The file stands alone: open it in a browser, attach it, archive it; it loads nothing.`;

export function makeReportCommand(): Command {
  return new Command("report")
    .description(
      "Write a run as one self-contained HTML file: the task, the baseline, each iteration " +
        "with its prompt, queries, declaration, checks and retry, the cost by reason and over " +
        "the iterations, and how it ended. Prints the file's path.",
    )
    .argument(
      "<run-id>",
      "a run id (or a prefix of one) in the runs dir, or `last` for the most recent run",
    )
    .option(
      "-o, --output <file>",
      "where to write the report (default: report.html in the run folder)",
    )
    .option(
      "--runs-dir <dir>",
      "where run folders are (default: closer/runs inside the git folder)",
    )
    .option(
      "--cwd <dir>",
      "a folder in the project, for the default runs dir (default: the current folder)",
    )
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (runIdOrLast: string, options: ReportOptions) => {
      const { runReport } = await import("./actions/report.js");
      await runReport(runIdOrLast, options);
    });
}
