import { resolve } from "node:path";
import { type AgentListing, listAgents } from "../../definition/load-agent.js";

export interface ListOptions {
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

/** `closer list`: the agents under .agent/, as lines or JSON. */
export async function runList(options: ListOptions): Promise<void> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const agents = (await listAgents(cwd)).map(toListed);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(agents, null, 2)}\n`);
    return;
  }
  process.stdout.write(describeAgents(agents, cwd));
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
