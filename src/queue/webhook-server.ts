import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { EnqueuedJob } from "./enqueue-jobs.js";
import { decideDelivery, type WatchedLabel } from "./webhook-delivery.js";

/** The path GitHub posts the deliveries to. */
export const WEBHOOK_PATH = "/webhook";

/** GitHub's deliveries are at most 25 MB. */
const MAX_BODY_BYTES = 25 * 1024 * 1024;

/** A handler that answers a request, or resolves false to leave it (the queue page, GET /). */
export type PageHandler = (request: IncomingMessage, response: ServerResponse) => Promise<boolean>;

/** How `closer serve`'s HTTP server works. */
export interface WebhookServerSettings {
  readonly host: string;
  readonly port: number;
  readonly watched: WatchedLabel;
  /** Whether `signature` (X-Hub-Signature-256) signs `body` with the webhook's secret. */
  readonly verify: (body: string, signature: string) => Promise<boolean>;
  /** Queues the issue, deduplicated as every job is. */
  readonly enqueue: (issue: number) => Promise<EnqueuedJob>;
  /** Answers the requests it knows (the queue page) before the webhook's route, when given. */
  readonly page?: PageHandler;
  readonly log: (line: string) => void;
}

/** The listening server. */
export interface WebhookServer {
  /** `http://host:port`, the port the OS gave for port 0. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Listens for GitHub's `issues` webhook on POST /webhook (docs/queue.md#serve):
 * a delivery whose signature does not verify is answered 401 and does
 * nothing; a verified one queues its issue when it got the label, and any
 * other is answered 200 and ignored, each with a log line.
 */
export async function startWebhookServer(settings: WebhookServerSettings): Promise<WebhookServer> {
  const server = createServer((request, response) => {
    handle(request, response, settings).catch((error: Error) => {
      settings.log(`${request.method} ${request.url}: ${error.message}`);
      if (!response.headersSent) reply(response, 500, { error: error.message });
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  settings: WebhookServerSettings,
): Promise<void> {
  const path = (request.url ?? "/").split("?")[0];
  if (settings.page !== undefined && (await settings.page(request, response))) return;
  if (path !== WEBHOOK_PATH) {
    reply(response, 404, { error: `closer serve takes GitHub's webhook on POST ${WEBHOOK_PATH}` });
    return;
  }
  if (request.method !== "POST") {
    reply(response, 405, { error: `POST GitHub's webhook to ${WEBHOOK_PATH}` });
    return;
  }
  const delivery = String(request.headers["x-github-delivery"] ?? "-");
  const event = request.headers["x-github-event"];
  const body = await readBody(request);
  if (body === undefined) {
    settings.log(`delivery ${delivery}: refused: larger than ${MAX_BODY_BYTES} bytes`);
    reply(response, 413, { error: "payload too large" });
    return;
  }
  const signature = request.headers["x-hub-signature-256"];
  const verified =
    typeof signature === "string" && signature !== "" && (await settings.verify(body, signature));
  if (!verified) {
    settings.log(
      `delivery ${delivery}: refused: ${typeof signature === "string" ? "the signature does not match" : "no X-Hub-Signature-256"} (is the webhook's secret the one closer serve has?)`,
    );
    reply(response, 401, { error: "bad signature" });
    return;
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    settings.log(
      `delivery ${delivery}: refused: not JSON (set the content type to application/json)`,
    );
    reply(response, 400, {
      error: "the payload is not JSON: set the content type to application/json",
    });
    return;
  }
  const decision = decideDelivery(
    typeof event === "string" ? event : undefined,
    payload,
    settings.watched,
  );
  if (decision.kind === "ignore") {
    settings.log(`delivery ${delivery}: ignored: ${decision.why}`);
    reply(response, 200, { ignored: decision.why });
    return;
  }
  const job = await settings.enqueue(decision.issue);
  settings.log(
    `delivery ${delivery}: ${decision.why}: ` +
      (job.duplicate
        ? `job ${job.jobId} is already queued or running; not queued again`
        : `job ${job.jobId} queued`),
  );
  reply(response, job.duplicate ? 200 : 202, { ...job, issue: decision.issue });
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on("end", () =>
      resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString("utf8")),
    );
    request.on("error", reject);
  });
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(`${JSON.stringify(body)}\n`);
}
