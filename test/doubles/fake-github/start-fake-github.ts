/**
 * A fake GitHub REST + GraphQL server on 127.0.0.1 (random port) for tests:
 * keeps issues, labels, comments and projects in memory, records every
 * request, and answers 401 / 404 / rate limits on demand.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type Reply, route } from "./fake-github-routes.js";
import {
  type FakeGithubSeed,
  type FakeGithubState,
  makeFakeGithubState,
} from "./fake-github-state.js";

/** One request the server received. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent (with the `/api/v3` prefix when used). */
  readonly path: string;
  readonly body: unknown;
  readonly authorization?: string;
}

/** A failure to answer instead of the normal response. */
export interface FakeFailure {
  readonly status: number;
  readonly message?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** How many matching requests fail (default 1). */
  readonly times?: number;
  /** Substring of `METHOD /path` (or a test of it); default: every request. */
  readonly match?: string | ((request: RecordedRequest) => boolean);
}

export interface FakeGithub {
  /** REST base URL, GitHub Enterprise style: `http://127.0.0.1:PORT/api/v3`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly state: FakeGithubState;
  failWith(failure: FakeFailure): void;
  /**
   * Holds the reply to the next request matching `match` (a substring of
   * `METHOD /path`) until `release()`. The request takes effect at once, as on
   * a server that got it: a client that dies meanwhile never learns it did.
   */
  holdReply(match: string): HeldReply;
  /** Answer with a rate-limit error (403 primary limit by default). */
  rateLimit(options: {
    readonly status?: 403 | 429;
    readonly resetEpochSeconds?: number;
    readonly retryAfterSeconds?: number;
    readonly times?: number;
    readonly match?: FakeFailure["match"];
  }): void;
  close(): Promise<void>;
}

/** A reply the fake holds back. */
export interface HeldReply {
  /** Resolves when the matching request has arrived (and taken effect). */
  readonly arrived: Promise<RecordedRequest>;
  release(): void;
}

interface PendingHold {
  readonly match: string;
  readonly arrive: (request: RecordedRequest) => void;
  readonly released: Promise<void>;
}

function isAuthorized(state: FakeGithubState, authorization: string | undefined): boolean {
  if (!state.token) return true;
  return authorization === `token ${state.token}` || authorization === `bearer ${state.token}`;
}

function takeFailure(failures: FakeFailure[], request: RecordedRequest): Reply | undefined {
  const line = `${request.method} ${request.path}`;
  const index = failures.findIndex((failure) =>
    failure.match === undefined
      ? true
      : typeof failure.match === "string"
        ? line.includes(failure.match)
        : failure.match(request),
  );
  const failure = failures[index];
  if (!failure) return undefined;
  const remaining = (failure.times ?? 1) - 1;
  if (remaining <= 0) failures.splice(index, 1);
  else failures[index] = { ...failure, times: remaining };
  return {
    status: failure.status,
    body: { message: failure.message ?? http.STATUS_CODES[failure.status] ?? "error" },
    headers: failure.headers ?? {},
  };
}

async function readBody(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Start the fake on a random loopback port. */
export async function startFakeGithub(seed: FakeGithubSeed = {}): Promise<FakeGithub> {
  const state = makeFakeGithubState(seed);
  const requests: RecordedRequest[] = [];
  const failures: FakeFailure[] = [];
  const holds: PendingHold[] = [];
  let apiUrl = "";
  const server = http.createServer((incoming, outgoing) => {
    void (async () => {
      const body = await readBody(incoming);
      const authorization = incoming.headers.authorization;
      const recorded: RecordedRequest = {
        method: incoming.method ?? "GET",
        path: incoming.url ?? "/",
        body,
        ...(authorization ? { authorization } : {}),
      };
      requests.push(recorded);
      const url = new URL(recorded.path, apiUrl);
      const reply: Reply = !isAuthorized(state, authorization)
        ? { status: 401, body: { message: "Bad credentials" } }
        : (takeFailure(failures, recorded) ??
          route(state, { method: recorded.method, url, body, apiUrl }));
      const holdIndex = holds.findIndex((hold) =>
        `${recorded.method} ${recorded.path}`.includes(hold.match),
      );
      const hold = holds.splice(holdIndex, holdIndex === -1 ? 0 : 1)[0];
      if (hold) {
        hold.arrive(recorded);
        await hold.released;
      }
      if (outgoing.destroyed) return;
      outgoing.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      outgoing.end(reply.body === undefined ? "" : JSON.stringify(reply.body));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  apiUrl = `http://127.0.0.1:${port}/api/v3`;
  return {
    url: apiUrl,
    requests,
    state,
    failWith: (failure) => failures.push(failure),
    holdReply: (match) => {
      let arrive: (request: RecordedRequest) => void = () => {};
      let release = () => {};
      const arrived = new Promise<RecordedRequest>((resolve) => {
        arrive = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      holds.push({ match, arrive, released });
      return { arrived, release };
    },
    rateLimit: (options) => {
      const headers: Record<string, string> = {
        "x-ratelimit-remaining": "0",
        "x-ratelimit-limit": "5000",
      };
      if (options.resetEpochSeconds !== undefined) {
        headers["x-ratelimit-reset"] = String(options.resetEpochSeconds);
      }
      if (options.retryAfterSeconds !== undefined) {
        headers["retry-after"] = String(options.retryAfterSeconds);
      }
      failures.push({
        status: options.status ?? 403,
        message: "API rate limit exceeded for user ID 1.",
        headers,
        ...(options.times !== undefined ? { times: options.times } : {}),
        ...(options.match !== undefined ? { match: options.match } : {}),
      });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
