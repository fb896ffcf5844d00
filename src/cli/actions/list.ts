import { resolve } from "node:path";
import { type AgentListing, listAgents } from "../../definition/load-agent.js";
import {
  type AgentReport,
  formatProblem,
  lintAgentFolder,
  type Problem,
} from "../../lint/index.js";

export interface ListOptions {
  readonly cwd?: string;
  readonly json?: boolean;
}

/** One line of `closer list` (docs/cli.md#list). */
interface ListedAgent {
  readonly name: string;
  readonly description: string;
  readonly dir: string;
  /** What `closer validate <agent>` says: no errors (warnings allowed). */
  readonly valid: boolean;
  readonly warnings: number;
  /** The first error `closer validate` finds, with its file and field. */
  readonly problem?: Problem;
  /** That problem as one line. */
  readonly error?: string;
}

/** `closer list`: the agents under .agent/, each valid or with its first problem, as lines or JSON. */
export async function runList(options: ListOptions): Promise<void> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const agents: ListedAgent[] = [];
  for (const listing of await listAgents(cwd)) {
    agents.push(toListed(listing, await lintAgentFolder(listing.name, cwd)));
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(agents, null, 2)}\n`);
    return;
  }
  process.stdout.write(describeAgents(agents, cwd));
}

function toListed(listing: AgentListing, report: AgentReport): ListedAgent {
  const { name, description, dir } = listing;
  const problem = report.problems.find((each) => each.severity === "error");
  const warnings = report.problems.filter((each) => each.severity === "warning").length;
  const base = { name, description, dir, valid: report.valid, warnings };
  if (report.valid || problem === undefined) return base;
  // The fix is validate's to give, with every other problem.
  const { fix: _fix, ...where } = problem;
  return { ...base, problem, error: firstLine(formatProblem(where)) };
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}

function describeAgents(agents: readonly ListedAgent[], cwd: string): string {
  if (agents.length === 0) {
    return `No agents under ${cwd}/.agent/ — create one with: closer init <agent>\n`;
  }
  const width = Math.max(...agents.map((agent) => agent.name.length));
  const lines = agents.map((agent) => {
    const text = agent.valid
      ? `valid    ${agent.description}${agent.warnings > 0 ? ` (${agent.warnings} warning(s))` : ""}`
      : `invalid  ${agent.error ?? ""} (closer validate ${agent.name})`;
    return `${agent.name.padEnd(width)}  ${text}`.trimEnd();
  });
  const invalid = agents.filter((agent) => !agent.valid).length;
  const footer =
    invalid > 0
      ? `\n${invalid} invalid agent(s): closer validate <agent> lists every problem and its fix`
      : "";
  return `${lines.join("\n")}${footer}\n`;
}
