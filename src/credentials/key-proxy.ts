/**
 * closer's loopback key proxy (docs/integrity.md#credentials): the backend's
 * processes hold a placeholder in place of the model API key and the proxy's
 * address in place of the API's; the proxy forwards each request to the real
 * base URL with the placeholder in its `x-api-key` or `Authorization: Bearer`
 * header replaced by the key, which lives in closer's process alone. Bodies
 * stream both ways: an SSE answer reaches the backend event by event.
 *
 * A request outside the model API's path space is refused (404), and so is one
 * whose credential is anything but a placeholder the proxy knows, or that has
 * none (401): the proxy relays the run's own backend, nothing else.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";

export interface KeyProxyOptions {
  /** The model API's real base URL, e.g. `https://api.anthropic.com` or `https://api.openai.com/v1`. */
  readonly target: string;
  /** The API's requests, under the target's own path: `/v1/` (Anthropic), `/` (OpenAI). */
  readonly pathSpace: string;
  /** Each placeholder the backend holds → the secret it stands for. */
  readonly keys: ReadonlyMap<string, string>;
}

export interface KeyProxy {
  /** `http://127.0.0.1:PORT` and the target's path: the base URL the backend gets. */
  readonly baseUrl: string;
  /** Stops listening and ends every open connection. */
  close(): Promise<void>;
}

/** Headers that belong to one connection, not to the request or answer they carry. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);

/** Starts the proxy on 127.0.0.1 and a port of the system's choosing. */
export async function startKeyProxy(options: KeyProxyOptions): Promise<KeyProxy> {
  const target = new URL(options.target);
  const basePath = target.pathname.replace(/\/+$/, "");
  const prefix = `${basePath}${options.pathSpace}`;
  const server = createServer((request, response) => {
    relay(request, response, { target, prefix, keys: options.keys });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Route {
  readonly target: URL;
  /** Every forwarded path starts with it. */
  readonly prefix: string;
  readonly keys: ReadonlyMap<string, string>;
}

function relay(request: IncomingMessage, response: ServerResponse, route: Route): void {
  // Absolute form too (a request through the sandbox's HTTP proxy); `..` segments are resolved.
  const url = new URL(request.url ?? "/", "http://proxy.invalid");
  if (!url.pathname.startsWith(route.prefix)) {
    refuse(response, 404, "not_found_error", `closer's key proxy relays ${route.prefix}* only`);
    request.resume();
    return;
  }
  const headers = withKeys(request.headers, route.keys);
  if (typeof headers === "string") {
    refuse(response, 401, "authentication_error", headers);
    request.resume();
    return;
  }
  const send = route.target.protocol === "https:" ? httpsRequest : httpRequest;
  const upstream = send(
    {
      protocol: route.target.protocol,
      hostname: route.target.hostname,
      port: route.target.port,
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, host: route.target.host },
    },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      response.flushHeaders();
      answer.pipe(response);
      answer.on("error", () => response.destroy());
    },
  );
  upstream.on("error", (error) => {
    if (response.headersSent) response.destroy();
    else refuse(response, 502, "api_error", `closer's key proxy could not reach the API: ${error}`);
  });
  // The backend gave up (a timeout, a cancelled query): so does the request upstream.
  response.on("close", () => {
    if (!response.writableFinished) upstream.destroy();
  });
  request.pipe(upstream);
}

/**
 * The request's headers for the API: each credential header's placeholder replaced by its
 * secret; or why the request is refused, when a credential header holds anything else or
 * there is none.
 */
export function withKeys(
  headers: IncomingHttpHeaders,
  keys: ReadonlyMap<string, string>,
): OutgoingHttpHeaders | string {
  const out = endToEnd(headers);
  let found = false;
  const apiKey = headers["x-api-key"];
  if (apiKey !== undefined) {
    const secret = typeof apiKey === "string" ? keys.get(apiKey) : undefined;
    if (secret === undefined) return "x-api-key is not the run's placeholder";
    out["x-api-key"] = secret;
    found = true;
  }
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    const secret = token === undefined ? undefined : keys.get(token);
    if (secret === undefined) return "the Authorization header is not the run's placeholder";
    out.authorization = `Bearer ${secret}`;
    found = true;
  }
  return found
    ? out
    : "no credential: x-api-key or Authorization: Bearer with the run's placeholder";
}

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

/** An error answer both the Anthropic and the OpenAI clients read: `error.type` and `error.message`. */
function refuse(response: ServerResponse, status: number, type: string, message: string): void {
  const body = JSON.stringify({ type: "error", error: { type, message } });
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  response.end(body);
}
