import { resolve } from "node:path";
import { Command } from "commander";
import { type AgentListing, listAgents } from "../definition/load-agent.js";

interface ListOptions {
  readonly cwd?: string;
  readonly json?: boolean;
}

/** One line of `closer list`. */
interface ListedAgent {
  readonly name: string;
  readonly description: string;
  readonly dir: string;
  /** First line of the load error of a broken agent. */
  readonly error?: string;
}

const EXAMPLES = `
Examples:
  $ closer list                  agents of the current project
  $ closer list --cwd ../other   agents of another project
  $ closer list --json           name, description, folder and error of each agent as JSON

A broken agent is listed with a short error; run \`closer validate <agent>\` for every problem.`;

export function makeListCommand(): Command {
  return new Command("list")
    .description("List the agents found under .agent/ with their descriptions.")
    .option("--cwd <dir>", "project directory that holds .agent/ (default: the current directory)")
    .option("--json", "print the agents as a JSON array")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (options: ListOptions) => {
      const cwd = resolve(options.cwd ?? process.cwd());
      const agents = (await listAgents(cwd)).map(toListed);
      if (options.json) {
        process.stdout.write(`${JSON.stringify(agents, null, 2)}\n`);
        return;
      }
      process.stdout.write(describeAgents(agents, cwd));
    });
}

function toListed(listing: AgentListing): ListedAgent {
  const { name, description, dir, error } = listing;
  if (error === undefined) return { name, description, dir };
  const text = error.describe();
  return { name, description, dir, error: text.split("\n")[0] ?? text };
}

function describeAgents(agents: readonly ListedAgent[], cwd: string): string {
  if (agents.length === 0) {
    return `No agents under ${cwd}/.agent/ — create one with: closer init <agent>\n`;
  }
  const width = Math.max(...agents.map((agent) => agent.name.length));
  const lines = agents.map((agent) => {
    const text = agent.error === undefined ? agent.description : `(broken) ${agent.error}`;
    return `${agent.name.padEnd(width)}  ${text}`.trimEnd();
  });
  const broken = agents.filter((agent) => agent.error !== undefined).length;
  const footer =
    broken > 0
      ? `\n${broken} broken agent(s) in .agent/: run closer validate to see every problem`
      : "";
  return `${lines.join("\n")}${footer}\n`;
}
