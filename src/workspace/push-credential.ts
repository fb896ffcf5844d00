/**
 * The push token's private channel (docs/worktrees-and-github.md#push-credential): closer
 * serves it once on a Unix socket in a folder of its own (mode 0700), to a credential helper
 * that names the socket and a one-time key; git runs that helper after the user's own. The
 * token is in no environment variable of the push, so nothing git starts reads it from there,
 * and it is never written to a file.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/** The helper's answer names this user, as GitHub wants with an installation or app token. */
const TOKEN_USERNAME = "x-access-token";

/** The longest request the channel reads: the key and a line end. */
const MAX_REQUEST_BYTES = 256;

/**
 * The credential helper, run by git as `<node> -e <script> <socket> <key> <action>`: for `get`
 * it sends the key and prints what the channel answers; for `store` and `erase` it does nothing.
 */
const HELPER_SCRIPT = [
  "const [, socket, key, action] = process.argv;",
  'if (action !== "get") process.exit(0);',
  "process.stdin.resume();",
  'const channel = require("node:net").connect(socket, () => channel.write(key + "\\n"));',
  "channel.pipe(process.stdout);",
  'channel.on("error", () => process.exit(0));',
].join(" ");

/** The token on its channel for one push, until `close`. */
export interface PushCredential {
  /** `credential.helper=…` for the push's `-c`: it holds the socket's path and the key, never the token. */
  readonly helperConfig: string;
  /** Whether the helper was given the token. */
  served(): boolean;
  /** Stops serving and removes the folder. */
  close(): Promise<void>;
}

/** Quotes a word for the POSIX shell git runs a `!` helper with. */
function shellWord(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Serves `token` once to a helper that sends the key: the first request with the key gets it
 * and the channel closes; any other request gets nothing.
 */
export async function openPushCredential(token: string): Promise<PushCredential> {
  const folder = await mkdtemp(path.join(tmpdir(), "closer-push-"));
  const socketPath = path.join(folder, "s");
  const key = randomBytes(32);
  let served = false;
  const server = createServer((connection) => {
    readKey(connection, (sent) => {
      if (served || !sameKey(sent, key)) {
        connection.destroy();
        return;
      }
      served = true;
      connection.end(`username=${TOKEN_USERNAME}\npassword=${token}\n`);
      server.close();
    });
  });
  try {
    await listen(server, socketPath);
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  const helper = [process.execPath, "-e", HELPER_SCRIPT, socketPath, key.toString("hex")]
    .map(shellWord)
    .join(" ");
  return {
    helperConfig: `credential.helper=!${helper}`,
    served: () => served,
    async close() {
      await new Promise<void>((done) => server.close(() => done()));
      await rm(folder, { recursive: true, force: true });
    },
  };
}

function listen(server: Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Reads the first line a helper sends (its key), at most MAX_REQUEST_BYTES. */
function readKey(connection: Socket, then: (sent: string) => void): void {
  let text = "";
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    then(text.split("\n")[0] ?? "");
  };
  connection.setEncoding("utf8");
  connection.on("data", (chunk: string) => {
    text += chunk;
    if (text.includes("\n") || text.length > MAX_REQUEST_BYTES) finish();
  });
  connection.on("end", finish);
  connection.on("error", () => connection.destroy());
}

function sameKey(sent: string, key: Buffer): boolean {
  const given = Buffer.from(sent, "utf8");
  const expected = Buffer.from(key.toString("hex"), "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
