import { listAgents } from "../../definition/load-agent.js";
import { CloserError } from "../../errors.js";
import { type AgentReport, formatProblem, lintAgentFolder } from "../../lint/index.js";

/** `closer validate`: every problem of each agent; exit code 2 when one is invalid. */
export async function runValidate(
  agent: string | undefined,
  cwd: string,
  json: boolean,
): Promise<void> {
  const names = agent === undefined ? await agentNames(cwd) : [agent];
  const reports: AgentReport[] = [];
  for (const name of names) reports.push(await lintAgentFolder(name, cwd));
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
