import { connect as connectTcp, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";
import { CloserError } from "../errors.js";

/** The environment variable that names the Redis server when `--redis` is not given. */
export const REDIS_URL_VARIABLE = "CLOSER_REDIS_URL";

/** How to connect to Redis, as BullMQ (ioredis) takes it. */
export interface RedisConnection {
  readonly host: string;
  readonly port: number;
  readonly username?: string;
  readonly password?: string;
  readonly db?: number;
  readonly tls?: Record<string, never>;
  /** BullMQ's workers block on Redis; ioredis must not give up on their commands. */
  readonly maxRetriesPerRequest: null;
}

const HOW_TO_START =
  "start one with `docker run -p 6379:6379 redis` (or the distribution's `redis-server`), " +
  `then pass --redis redis://127.0.0.1:6379 or export ${REDIS_URL_VARIABLE}=redis://127.0.0.1:6379`;

/** `--redis`, else CLOSER_REDIS_URL; neither is a config error saying how to get a Redis. */
export function redisUrlOf(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const url = flag ?? env[REDIS_URL_VARIABLE];
  if (url !== undefined && url.trim() !== "") return url.trim();
  throw new CloserError("config_error", "the queue commands need a Redis server", {
    expected: `--redis URL or ${REDIS_URL_VARIABLE}`,
    found: "neither",
    fix: HOW_TO_START,
  });
}

/** `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS) into connection options. */
export function parseRedisUrl(url: string): RedisConnection {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badUrl(url);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") throw badUrl(url);
  const db = parsed.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db)) throw badUrl(url);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1",
    port: parsed.port === "" ? 6379 : Number(parsed.port),
    ...(parsed.username === "" ? {} : { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password === "" ? {} : { password: decodeURIComponent(parsed.password) }),
    ...(db === "" ? {} : { db: Number(db) }),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

function badUrl(url: string): CloserError {
  return new CloserError("usage_error", `not a Redis URL: ${JSON.stringify(url)}`, {
    expected: "redis://[user:password@]host[:port][/db] or rediss://… for TLS",
    fix: "pass e.g. --redis redis://127.0.0.1:6379",
  });
}

/**
 * Opens a connection and sends PING, so an unreachable server is one clear
 * error before BullMQ starts retrying in the background. Any answer (PONG,
 * or NOAUTH from a server that wants a password BullMQ will send) counts.
 */
export async function assertRedisReachable(
  connection: RedisConnection,
  timeoutMs = 5000,
): Promise<void> {
  const where = `${connection.host}:${connection.port}`;
  const problem = await probe(connection, timeoutMs);
  if (problem === undefined) return;
  throw new CloserError("config_error", `cannot reach Redis at ${where}: ${problem}`, {
    expected: "a Redis server answering at the --redis URL",
    found: problem,
    fix: HOW_TO_START,
  });
}

function probe(connection: RedisConnection, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const options = { host: connection.host, port: connection.port };
    const socket: Socket =
      connection.tls === undefined
        ? connectTcp(options)
        : connectTls({ ...options, servername: connection.host });
    const finish = (problem: string | undefined) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(timeoutMs, () => finish(`no answer within ${timeoutMs} ms`));
    socket.once("error", (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    socket.once(connection.tls === undefined ? "connect" : "secureConnect", () => {
      socket.write("PING\r\n");
    });
    socket.once("data", (chunk: Buffer) => {
      const first = chunk.toString("utf8", 0, 1);
      finish(first === "+" || first === "-" ? undefined : "the server does not speak Redis");
    });
  });
}

/** The socket errors of a Redis that is down, restarting or out of reach. */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/**
 * Why Redis cannot be reached, when `error` says it cannot (a refused or reset socket, a
 * connection closed under a command); undefined for any other error. ioredis reconnects by
 * itself after each of these (docs/queue.md#redis-restart).
 */
export function unreachableReason(error: Error): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && UNREACHABLE_CODES.has(code)) return code;
  if (/connection is closed|socket closed unexpectedly/i.test(error.message)) {
    return "the connection closed";
  }
  return undefined;
}
