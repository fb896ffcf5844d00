import { Command } from "commander";
import type { ServeFlags } from "./actions/serve.js";
import { addJobTemplateOptions, agentParameterTokens } from "./job-options.js";

const EXAMPLES = `
Examples:
  $ CLOSER_WEBHOOK_SECRET=… closer serve --agent fixer --label ready --port 8787
  $ closer serve --agent fixer --label ready --host 0.0.0.0 --secret-file /etc/closer/webhook-secret

In GitHub: Settings → Webhooks → Add webhook, payload URL https://<public address>/webhook,
content type application/json, the same secret, events: Issues. An issue that gets the label
(or is opened or reopened with it) is queued once for \`closer worker\` processes; a delivery whose
signature does not match is refused with 401 (docs/queue.md#serve).`;

export function makeServeCommand(): Command {
  const command = new Command("serve")
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
    );
  return addJobTemplateOptions(command)
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (flags: ServeFlags, self: Command) => {
      const { serveFromCommandLine } = await import("./actions/serve.js");
      process.exitCode = await serveFromCommandLine(flags, agentParameterTokens(self, 0));
    });
}
