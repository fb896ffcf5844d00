import { Command } from "commander";
import type { WatchFlags } from "./actions/watch.js";
import { addJobTemplateOptions, agentParameterTokens } from "./job-options.js";

const EXAMPLES = `
Examples:
  $ closer watch fixer --label ready --every 5 --redis redis://127.0.0.1:6379
  $ closer watch fixer --label ready --every 30s --repo acme/widgets
  $ closer watch fixer --label ready --flavour strict     (the agent's own parameters travel with each job)
  $ closer watch --list
  $ closer watch --stop --label ready

Every interval, one watcher lists the open issues with the label (GITHUB_TOKEN, GITHUB_API_URL)
and queues each one not queued since it got the label, for \`closer worker\` processes. The
schedule lives on Redis: more watchers, or a restarted one, share it; --stop removes it
(docs/queue.md#watch). Redis: --redis URL or CLOSER_REDIS_URL.`;

export function makeWatchCommand(): Command {
  const command = new Command("watch")
    .description(
      "Queue every issue that gets a label, on a schedule kept on Redis: every interval the " +
        "open issues with the label are listed and the new ones queued, each once.",
    )
    .argument(
      "[agent]",
      "the agent the jobs run: a folder under .agent/, committed in the repository",
    )
    .option("--label <label>", "the label that puts an issue in the queue")
    .option("--every <duration>", "how often: minutes (5), or 30s, 10m, 1h (default 5)");
  return addJobTemplateOptions(command)
    .option("--stop", "remove the schedule of --label (and the repository) and exit")
    .option("--list", "list the schedules on the Redis and exit")
    .option("--json", "with --list: print the schedules as a JSON array")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (agent: string | undefined, flags: WatchFlags, self: Command) => {
      const { watchFromCommandLine } = await import("./actions/watch.js");
      // An unknown option before any agent is commander's first operand: not an agent.
      const named = agent?.startsWith("-") === false ? agent : undefined;
      const parameters = agentParameterTokens(self, named === undefined ? 0 : 1);
      process.exitCode = await watchFromCommandLine(named, flags, parameters);
    });
}
