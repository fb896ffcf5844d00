import { Command } from "commander";
import type { WatchFlags } from "./actions/watch.js";

const EXAMPLES = `
Examples:
  $ closer watch fixer --label ready --every 5 --redis redis://127.0.0.1:6379
  $ closer watch fixer --label ready --every 30s --repo acme/widgets
  $ closer watch --list
  $ closer watch --stop --label ready

Every interval, one watcher lists the open issues with the label (GITHUB_TOKEN, GITHUB_API_URL)
and queues each one not queued since it got the label, for \`closer worker\` processes. The
schedule lives on Redis: more watchers, or a restarted one, share it; --stop removes it
(docs/queue.md#watch). Redis: --redis URL or CLOSER_REDIS_URL.`;

export function makeWatchCommand(): Command {
  return new Command("watch")
    .description(
      "Queue every issue that gets a label, on a schedule kept on Redis: every interval the " +
        "open issues with the label are listed and the new ones queued, each once.",
    )
    .argument(
      "[agent]",
      "the agent the jobs run: a folder under .agent/, committed in the repository",
    )
    .option("--label <label>", "the label that puts an issue in the queue")
    .option("--every <duration>", "how often: minutes (5), or 30s, 10m, 1h (default 5)")
    .option("--redis <url>", "the Redis server (default: $CLOSER_REDIS_URL)")
    .option("--repo <owner/name>", "the GitHub repository (default: from the origin remote)")
    .option("--clone-url <url>", "what workers clone (default: the origin remote's URL)")
    .option("--cwd <dir>", "the project folder holding .agent/ (default: the current folder)")
    .option("--priority <p>", "the jobs' priority: 1 is taken first")
    .option("--attempts <k>", "attempts before a job fails (default 1)")
    .option("--max-iterations <n>", "overrides runner.maxIterations in the workers' runs")
    .option("--backend <kind>", "overrides runner.backend.kind")
    .option("--model <model>", "overrides runner.backend.model")
    .option("--sandbox <mode>", "overrides runner.sandbox.mode")
    .option("--base-branch <branch>", "the branch the work starts from (default: the clone's)")
    .option("--stop", "remove the schedule of --label (and the repository) and exit")
    .option("--list", "list the schedules on the Redis and exit")
    .option("--json", "with --list: print the schedules as a JSON array")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (agent: string | undefined, flags: WatchFlags) => {
      const { watchFromCommandLine } = await import("./actions/watch.js");
      process.exitCode = await watchFromCommandLine(agent, flags);
    });
}
