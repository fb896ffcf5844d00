import { Command } from "commander";
import type { EnqueueFlags } from "./actions/enqueue.js";
import { addRepositoryOptions, addRunFlagOptions, agentParameterTokens } from "./job-options.js";

const EXAMPLES = `
Examples:
  $ closer enqueue fixer --issue 12 --issue 15 --redis redis://127.0.0.1:6379
  $ closer enqueue fixer --label ready --priority 1 --attempts 3
  $ closer enqueue fixer --task-file tasks/upgrade.md
  $ closer enqueue fixer --issue 12 --flavour strict     (the agent's own parameters travel with the job)

The repository (its origin remote, or --repo and --clone-url) and the agent go into each job;
\`closer worker\` on any machine clones the repository and runs the job (docs/queue.md).
Redis: --redis URL or CLOSER_REDIS_URL.`;

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function makeEnqueueCommand(): Command {
  const command = new Command("enqueue")
    .description(
      "Queue closer runs on Redis for `closer worker` processes anywhere: one job per issue " +
        "(or task), an issue already queued or running never twice.",
    )
    .argument("<agent>", "the agent to run: a folder under .agent/, committed in the repository")
    .option("--issue <n>", "a GitHub issue (repeat for more)", collect)
    .option("--label <label>", "every open issue with the label")
    .option("--project <n>", "the open issues on GitHub Projects v2 board N")
    .option("--task-file <file>", "a written task from a file")
    .option("--redis <url>", "the Redis server (default: $CLOSER_REDIS_URL)")
    .option("--priority <p>", "1 is taken first; jobs without a priority come before all")
    .option("--attempts <k>", "attempts before the job fails (default 1)");
  return addRunFlagOptions(addRepositoryOptions(command))
    .option("--json", "print the jobs as one JSON line")
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (agent: string, flags: EnqueueFlags, self: Command) => {
      const { enqueueFromCommandLine } = await import("./actions/enqueue.js");
      // commander's leftovers: the agent, then the agent's own parameter flags.
      process.exitCode = await enqueueFromCommandLine(agent, flags, agentParameterTokens(self, 1));
    });
}
