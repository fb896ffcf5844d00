import { readAgent } from "../../definition/load-agent.js";
import { type ImportClimptOptions, importClimpt } from "../../import/climpt/import-climpt.js";
import { describeImportReport } from "../../import/climpt/mapping-report.js";
import { type AgentReport, runLints } from "../../lint/lint-agent.js";
import { formatProblem, makeProblemCollector } from "../../lint/problem.js";
import { RUN_OPTIONS } from "../run/run-help.js";

export interface ImportClimptRun extends ImportClimptOptions {
  readonly json: boolean;
}

/** `closer import climpt`: write the agent, print what each key became, check the result. */
export async function runImportClimpt(options: ImportClimptRun): Promise<void> {
  const closerFlags = RUN_OPTIONS.map((option) => option.flags.split(" ")[0] ?? "");
  const report = await importClimpt({ ...options, closerFlags });
  const check = await lintWritten(report.name, report.out, options.cwd);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...report, validation: check }, null, 2)}\n`);
  } else {
    const problems = check.problems.map(formatProblem);
    const verdict = check.valid
      ? `✓ ${report.name} is valid`
      : `✗ ${report.name}: ${problems.length} problem(s); fix them, then run closer validate`;
    process.stdout.write(`${describeImportReport(report)}${[...problems, verdict].join("\n")}\n`);
  }
  if (!check.valid) process.exitCode = 2;
}

/** The checks of `closer validate` on the folder just written. */
async function lintWritten(name: string, dir: string, cwd: string): Promise<AgentReport> {
  const problems = makeProblemCollector(name, cwd);
  const reading = await readAgent(name, cwd, dir);
  for (const problem of reading.problems) problems.addError(problem, { file: dir });
  if (reading.agent === undefined) return { name, valid: false, problems: problems.problems };
  return runLints(reading.agent, problems);
}
