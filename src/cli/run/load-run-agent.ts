import { loadAgent } from "../../definition/load-agent.js";
import type { ResolvedAgent } from "../../ports/agent.js";
import { assertKnownOptions } from "./known-options.js";
import { RUN_OPTIONS } from "./run-help.js";
import { missingAgentError, type RunFlags, readRunAgentName } from "./run-invocation.js";

/**
 * The agent `closer run` names, loaded, with the command line's options checked against run's
 * own and the agent's before anything else is said of it (docs/cli.md#unknown-options).
 * Without an agent, only a typo of run's own options is reported first.
 */
export async function loadRunAgent(
  tokens: readonly string[],
  flags: RunFlags,
  cwd: string,
): Promise<ResolvedAgent> {
  const known = { command: "closer run", options: RUN_OPTIONS };
  const name = readRunAgentName(tokens, flags);
  if (name === undefined) {
    assertKnownOptions(tokens, { ...known, typosOnly: true });
    throw missingAgentError(tokens);
  }
  const agent = await loadAgent(name, { cwd });
  assertKnownOptions(tokens, { ...known, agent });
  return agent;
}
