import type { Command } from "commander";
import type { AgentParameterTokens } from "./actions/job-pieces.js";

/** Where the jobs' repository and agent are: what each job carries (docs/queue.md#job-data). */
export function addRepositoryOptions(command: Command): Command {
  return command
    .option("--repo <owner/name>", "the GitHub repository (default: from the origin remote)")
    .option("--clone-url <url>", "what workers clone (default: the origin remote's URL)")
    .option("--cwd <dir>", "the project folder holding .agent/ (default: the current folder)");
}

/** closer run's flags the jobs carry, over agent.json. */
export function addRunFlagOptions(command: Command): Command {
  return command
    .option("--max-iterations <n>", "overrides runner.maxIterations in the workers' runs")
    .option("--backend <kind>", "overrides runner.backend.kind")
    .option("--model <model>", "overrides runner.backend.model")
    .option("--sandbox <mode>", "overrides runner.sandbox.mode")
    .option("--base-branch <branch>", "the branch the work starts from (default: the clone's)");
}

/**
 * The options of `closer watch` and `closer serve` that make their jobs: Redis, the repository,
 * the jobs' priority and attempts, and closer run's flags. The agent's own parameter flags are
 * let through, for `agentParameterTokens` (docs/queue.md#watch).
 */
export function addJobTemplateOptions(command: Command): Command {
  command.option("--redis <url>", "the Redis server (default: $CLOSER_REDIS_URL)");
  addRepositoryOptions(command)
    .option("--priority <p>", "the jobs' priority: 1 is taken first")
    .option("--attempts <k>", "attempts before a job fails (default 1)");
  return addRunFlagOptions(command).allowUnknownOption().allowExcessArguments();
}

/**
 * What commander left of a command that lets unknown options through: the agent's own parameter
 * flags and their values, past the first `operands` (the agent, when it is an argument), and the
 * command's options for the message about an unknown one (docs/cli.md#agent-parameters).
 */
export function agentParameterTokens(self: Command, operands: number): AgentParameterTokens {
  return {
    parameterTokens: self.args.slice(operands),
    options: self.options.map((option) => ({
      flags: option.flags,
      description: option.description ?? "",
    })),
  };
}
