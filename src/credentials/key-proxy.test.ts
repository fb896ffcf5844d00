import { once } from "node:events";
import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type KeyProxy, startKeyProxy } from "./key-proxy.js";

const KEY = "sk-ant-real-secret-key";
const TOKEN = "real-oauth-token";
const PLACEHOLDER = "closer-placeholder-ANTHROPIC_API_KEY";
const TOKEN_PLACEHOLDER = "closer-placeholder-CLAUDE_CODE_OAUTH_TOKEN";
const KEYS = new Map([
  [PLACEHOLDER, KEY],
  [TOKEN_PLACEHOLDER, TOKEN],
]);

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

/** The real API's stand-in: records each request; `handle` answers it. */
async function startApi(
  handle: (request: IncomingMessage, response: import("node:http").ServerResponse) => void,
) {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    });
    handle(req, res);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { server, received, url: `http://127.0.0.1:${port}` };
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? "POST", headers: options.headers ?? {} },
      async (res) => {
        let body = "";
        for await (const chunk of res) body += String(chunk);
        resolve({ status: res.statusCode ?? 0, body });
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

describe("the key proxy", () => {
  let api: Server | undefined;
  let proxy: KeyProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    api?.closeAllConnections();
    api?.close();
    api = proxy = undefined;
  });

  async function start(
    handle: Parameters<typeof startApi>[0] = (_req, res) => res.end('{"ok":true}'),
    path = "",
    pathSpace = "/v1/",
  ) {
    const upstream = await startApi(handle);
    api = upstream.server;
    proxy = await startKeyProxy({ target: `${upstream.url}${path}`, pathSpace, keys: KEYS });
    return { received: upstream.received, proxy };
  }

  it("replaces the placeholder in x-api-key with the key; the API gets the body, path and other headers; the placeholder never reaches it", async () => {
    const { received, proxy } = await start();
    const answer = await send(`${proxy.baseUrl}/v1/messages?beta=true`, {
      headers: { "x-api-key": PLACEHOLDER, "anthropic-version": "2023-06-01" },
      body: '{"model":"claude"}',
    });
    expect(answer).toEqual({ status: 200, body: '{"ok":true}' });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      method: "POST",
      url: "/v1/messages?beta=true",
      body: '{"model":"claude"}',
      headers: { "x-api-key": KEY, "anthropic-version": "2023-06-01" },
    });
    expect(JSON.stringify(received)).not.toContain("closer-placeholder");
  });

  it("replaces the placeholder of an Authorization: Bearer header with its own secret", async () => {
    const { received, proxy } = await start();
    const answer = await send(`${proxy.baseUrl}/v1/messages`, {
      headers: { authorization: `Bearer ${TOKEN_PLACEHOLDER}` },
      body: "{}",
    });
    expect(answer.status).toBe(200);
    expect(received[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(received[0]?.headers["x-api-key"]).toBeUndefined();
  });

  it("streams an SSE answer: the first event reaches the client before the API has sent the second", async () => {
    let sendSecond: () => void = () => undefined;
    const second = new Promise<void>((resolve) => {
      sendSecond = resolve;
    });
    const { proxy } = await start((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: message_start\ndata: {}\n\n");
      void second.then(() => res.end("event: message_stop\ndata: {}\n\n"));
    });
    const events: string[] = [];
    const done = new Promise<number>((resolve, reject) => {
      const req = request(
        `${proxy.baseUrl}/v1/messages`,
        { method: "POST", headers: { "x-api-key": PLACEHOLDER } },
        (res) => {
          expect(res.headers["content-type"]).toBe("text/event-stream");
          res.on("data", (chunk) => {
            events.push(String(chunk));
            // The API holds the second event back until the first has come through.
            if (events.length === 1) sendSecond();
          });
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
    expect(await done).toBe(200);
    expect(events[0]).toBe("event: message_start\ndata: {}\n\n");
    expect(events.join("")).toContain("message_stop");
  });

  it("refuses a request with another key, or none, with a 401 and forwards nothing", async () => {
    const { received, proxy } = await start();
    const other = await send(`${proxy.baseUrl}/v1/messages`, {
      headers: { "x-api-key": "sk-ant-the-models-own-key" },
    });
    const otherBearer = await send(`${proxy.baseUrl}/v1/messages`, {
      headers: { "x-api-key": PLACEHOLDER, authorization: "Bearer something-else" },
    });
    const none = await send(`${proxy.baseUrl}/v1/messages`);
    for (const answer of [other, otherBearer, none]) {
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { type: "authentication_error" } });
    }
    expect(received).toEqual([]);
  });

  it("refuses a path outside the model API's (a `..` escape too) with a 404", async () => {
    const { received, proxy } = await start();
    const headers = { "x-api-key": PLACEHOLDER };
    const outside = await send(`${proxy.baseUrl}/api/oauth/profile`, { headers });
    const escaped = await send(`${proxy.baseUrl}/v1/../admin`, { headers, method: "GET" });
    expect([outside.status, escaped.status]).toEqual([404, 404]);
    expect(received).toEqual([]);
  });

  it("keeps the target's own path: an OpenAI base URL with /v1 forwards /v1/responses", async () => {
    const { received, proxy } = await start(undefined, "/v1", "/");
    expect(proxy.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const answer = await send(`${proxy.baseUrl}/responses`, {
      headers: { authorization: `Bearer ${PLACEHOLDER}` },
      body: "{}",
    });
    expect(answer.status).toBe(200);
    expect(received[0]).toMatchObject({
      url: "/v1/responses",
      headers: { authorization: `Bearer ${KEY}` },
    });
    const outside = await send(`${new URL(proxy.baseUrl).origin}/other`, {
      headers: { authorization: `Bearer ${PLACEHOLDER}` },
    });
    expect(outside.status).toBe(404);
  });

  it("answers 502 when the API cannot be reached", async () => {
    const { proxy } = await start();
    api?.close();
    api?.closeAllConnections();
    await once(api as Server, "close");
    api = undefined;
    const answer = await send(`${proxy.baseUrl}/v1/messages`, {
      headers: { "x-api-key": PLACEHOLDER },
    });
    expect(answer.status).toBe(502);
    expect(answer.body).not.toContain(KEY);
  });
});
