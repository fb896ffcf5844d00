import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { CloserError, wholeNumberAtLeastOne } from "../../errors.js";
import { importModule } from "../../import-module.js";
import {
  enqueueJobs,
  openQueue,
  type PageHandler,
  reachableRedis,
  startWebhookServer,
  WEBHOOK_PATH,
} from "../../queue/index.js";
import { queuePageHandler } from "../../queue/queue-page.js";
import { exitCodeOfSignal } from "../../run/exit-code.js";
import { withInterrupt } from "../run/interrupt.js";
import { exitCodeAfterError } from "./error-exit.js";
import type { AgentParameterTokens } from "./job-pieces.js";
import { type JobTemplateFlags, jobTemplateOf } from "./job-template.js";

/** `closer serve`'s options as commander parses them. */
export interface ServeFlags extends JobTemplateFlags {
  readonly agent?: string;
  readonly label?: string;
  readonly port?: string;
  readonly host?: string;
  readonly secretFile?: string;
  readonly redis?: string;
}

/** The variable that holds the webhook's secret when --secret-file is not given. */
export const WEBHOOK_SECRET_VARIABLE = "CLOSER_WEBHOOK_SECRET";

const DEFAULT_PORT = 8787;
const DEFAULT_HOST = "127.0.0.1";

const writeError = (text: string) => {
  process.stderr.write(text);
};

/** The secret of --secret-file (its first line), else of CLOSER_WEBHOOK_SECRET. */
async function webhookSecret(flags: ServeFlags): Promise<string> {
  const secret =
    flags.secretFile === undefined
      ? (process.env[WEBHOOK_SECRET_VARIABLE] ?? "")
      : await readFile(resolve(flags.secretFile), "utf8").then(
          (text) => text.split(/\r?\n/)[0] ?? "",
          (error: NodeJS.ErrnoException) => {
            throw new CloserError(
              "config_error",
              `cannot read --secret-file ${flags.secretFile}: ${error.code ?? error.message}`,
              {
                fix: "pass a file that holds the webhook's secret on its first line",
              },
            );
          },
        );
  if (secret.trim() !== "") return secret.trim();
  const missing =
    flags.secretFile === undefined
      ? `neither ${WEBHOOK_SECRET_VARIABLE} nor --secret-file FILE is given`
      : `${flags.secretFile} is empty`;
  throw new CloserError("config_error", `the webhook's secret is missing: ${missing}`, {
    expected: `${WEBHOOK_SECRET_VARIABLE} or --secret-file FILE`,
    fix: `make one (\`openssl rand -hex 32\`), give it to GitHub as the webhook's secret and to closer serve as ${WEBHOOK_SECRET_VARIABLE}=… or --secret-file FILE`,
  });
}

function portOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PORT;
  if (text.trim() === "0") return 0;
  const port = wholeNumberAtLeastOne("--port", text);
  if (port <= 65535) return port;
  throw new CloserError("usage_error", "--port must be at most 65535", {
    found: text,
    fix: `pass e.g. --port ${DEFAULT_PORT}`,
  });
}

/** Everything `closer serve` does; returns the exit code once it has stopped. */
export async function serveFromCommandLine(
  flags: ServeFlags,
  parameters: AgentParameterTokens = { parameterTokens: [], options: [] },
): Promise<number> {
  try {
    if (flags.agent === undefined || flags.label === undefined || flags.label.trim() === "") {
      throw new CloserError("usage_error", "closer serve needs --agent and --label", {
        fix: "closer serve --agent fixer --label ready [--port 8787]",
      });
    }
    const port = portOf(flags.port);
    const secret = await webhookSecret(flags);
    const connection = await reachableRedis(flags.redis, process.env);
    const template = await jobTemplateOf(flags.agent, flags, parameters, "closer serve");
    const { Webhooks } =
      await importModule<typeof import("@octokit/webhooks")>("@octokit/webhooks");
    const webhooks = new Webhooks({ secret });
    const queue = await openQueue(connection);
    try {
      // The queue page (GET /) on the same server (docs/queue.md#serve).
      const page: PageHandler = queuePageHandler(queue);
      const log = (line: string) => writeError(`closer serve: ${line}\n`);
      const stopped = await withInterrupt(
        async (signal) => {
          const server = await startWebhookServer({
            host: flags.host ?? DEFAULT_HOST,
            port,
            watched: {
              owner: template.repository.owner,
              name: template.repository.name,
              label: flags.label as string,
            },
            verify: (body, signature) => webhooks.verify(body, signature).catch(() => false),
            enqueue: async (issue) => {
              const [job] = await enqueueJobs(
                queue,
                [
                  {
                    version: 1,
                    repository: template.repository,
                    agent: template.agent,
                    work: { kind: "issue", issue },
                    flags: template.flags,
                  },
                ],
                template.enqueue,
              );
              return job as NonNullable<typeof job>;
            },
            page,
            log,
          });
          const repository = `${template.repository.owner}/${template.repository.name}`;
          log(`listening on ${server.url}`);
          log(
            `in GitHub (${repository} → Settings → Webhooks → Add webhook): payload URL <this server's public address>${WEBHOOK_PATH} ` +
              `(here ${server.url}${WEBHOOK_PATH}), content type application/json, the secret of ${flags.secretFile ?? WEBHOOK_SECRET_VARIABLE}, ` +
              `events: Issues; an issue labelled ${JSON.stringify(flags.label)} is queued for agent ${template.agent}`,
          );
          await new Promise<void>((done) => {
            if (signal.aborted) done();
            else signal.addEventListener("abort", () => done(), { once: true });
          });
          await server.close();
          return String(signal.reason ?? "SIGTERM");
        },
        {
          write: writeError,
          kept: "what GitHub sends meanwhile can be redelivered from the webhook's Recent Deliveries",
        },
      );
      return exitCodeOfSignal(stopped);
    } finally {
      await queue.close();
    }
  } catch (error) {
    return exitCodeAfterError(error);
  }
}
