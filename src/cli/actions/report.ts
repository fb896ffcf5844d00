import { resolveRunId } from "../../observe/find-runs.js";
import { locateRunsDir } from "../../observe/locate-runs-dir.js";
import { readRunView } from "../../observe/read-run-view.js";
import { writeRunReport } from "../../observe/report/write-run-report.js";

export interface ReportOptions {
  readonly output?: string;
  readonly runsDir?: string;
  readonly cwd?: string;
}

/** `closer report`: writes the run's HTML report and prints its path. */
export async function runReport(runIdOrLast: string, options: ReportOptions): Promise<void> {
  const runsDir = await locateRunsDir(options);
  const run = await resolveRunId(runsDir, runIdOrLast);
  const file = await writeRunReport(await readRunView(run.runDir), options.output);
  process.stdout.write(`${file}\n`);
}
