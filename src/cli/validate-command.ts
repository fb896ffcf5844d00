import { resolve } from "node:path";
import { Command } from "commander";
import { type AgentReport, checkAgentFolder, formatProblem } from "../check/index.js";
import { listAgents } from "../definition/load-agent.js";
import { CloserError } from "../errors.js";

interface ValidateOptions {
  readonly cwd?: string;
  readonly json?: boolean;
}

const EXAMPLES = `
Examples:
  $ closer validate              check every agent under .agent/
  $ closer validate iterator     check .agent/iterator/ only
  $ closer validate --json       the problems as JSON, for editors and CI

Each problem is one line: file: JSON path: message (fix: …).
Exit code 0 when every agent is valid (warnings allowed), 2 when anything is wrong.`;

export function makeValidateCommand(): Command {
  return new Command("validate")
    .summary("Check agent definitions without running them (every problem, not the first).")
    .description(
      "Check agent definitions without running them: agent.json and steps_registry.json load, " +
        "every step, retry and closure review prompt resolves, every template variable is " +
        "supplied, output schemas resolve, and steps, validators and patterns point at things " +
        "that exist.",
    )
    .argument("[agent]", "agent to check (a folder under .agent/); default: every agent")
    .option("--cwd <dir>", "project directory that holds .agent/ (default: the current directory)")
    .option("--json", "print the result as one JSON document")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (agent: string | undefined, options: ValidateOptions) => {
      await runValidate(agent, resolve(options.cwd ?? process.cwd()), options.json === true);
    });
}

async function runValidate(agent: string | undefined, cwd: string, json: boolean): Promise<void> {
  const names = agent === undefined ? await agentNames(cwd) : [agent];
  const reports: AgentReport[] = [];
  for (const name of names) reports.push(await checkAgentFolder(name, cwd));
  const valid = reports.every((report) => report.valid);
  if (json) {
    process.stdout.write(`${JSON.stringify({ valid, agents: reports }, null, 2)}\n`);
  } else {
    for (const report of reports) process.stdout.write(describeReport(report));
  }
  if (!valid) process.exitCode = 2;
}

async function agentNames(cwd: string): Promise<string[]> {
  const listings = await listAgents(cwd);
  if (listings.length === 0) {
    throw new CloserError("not_found", `no agents found under ${cwd}/.agent/`, {
      file: ".agent",
      fix: "create one with: closer init <agent>",
    });
  }
  return listings.map((listing) => listing.name);
}

function describeReport(report: AgentReport): string {
  const lines = report.problems.map(formatProblem);
  if (report.valid) {
    const counts = report.counts;
    const detail = counts
      ? ` (${counts.steps} step(s), ${counts.completionSteps} completion step(s), ${counts.validators} validator(s))`
      : "";
    lines.push(`✓ ${report.name} is valid${detail}`);
  } else {
    const errors = report.problems.filter((problem) => problem.severity === "error").length;
    lines.push(`✗ ${report.name}: ${errors} problem(s)`);
  }
  return `${lines.join("\n")}\n`;
}
