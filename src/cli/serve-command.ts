import { Command } from "commander";
import type { ServeFlags } from "./actions/serve.js";

const EXAMPLES = `
Examples:
  $ CLOSER_WEBHOOK_SECRET=… closer serve --agent fixer --label ready --port 8787
  $ closer serve --agent fixer --label ready --host 0.0.0.0 --secret-file /etc/closer/webhook-secret

In GitHub: Settings → Webhooks → Add webhook, payload URL https://<public address>/webhook,
content type application/json, the same secret, events: Issues. An issue that gets the label
(or is opened or reopened with it) is queued once for \`closer worker\` processes; a delivery whose
signature does not match is refused with 401 (docs/queue.md#serve).`;

export function makeServeCommand(): Command {
  return new Command("serve")
    .description(
      "Queue an issue the moment it gets a label: an HTTP endpoint for GitHub's issues webhook, " +
        "its signature checked with the webhook's secret.",
    )
    .option(
      "--agent <agent>",
      "the agent the jobs run: a folder under .agent/, committed in the repository",
    )
    .option("--label <label>", "the label that puts an issue in the queue")
    .option("--port <port>", "the port to listen on (default 8787; 0: any free port)")
    .option(
      "--host <host>",
      "the address to listen on (default 127.0.0.1; 0.0.0.0: every interface)",
    )
    .option(
      "--secret-file <file>",
      "the webhook's secret, on the file's first line (default: $CLOSER_WEBHOOK_SECRET)",
    )
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
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (flags: ServeFlags) => {
      const { serveFromCommandLine } = await import("./actions/serve.js");
      process.exitCode = await serveFromCommandLine(flags);
    });
}
