/**
 * A git remote on loopback over smart HTTP, as a hosting service serves one: git's own
 * `git http-backend` behind Basic authentication. Pushes need the token; what each request
 * carried is kept, so a test sees which credential reached the server.
 */
import { spawn } from "node:child_process";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand } from "../../src/process/shell-command.js";

export interface GitHttpRemote {
  /** `http://127.0.0.1:<port>/repo.git` */
  readonly url: string;
  /** The bare repository behind it. */
  readonly dir: string;
  /** The passwords of the requests' Basic credentials, in order. */
  readonly passwords: string[];
  close(): Promise<void>;
}

/** A bare repository served at `/repo.git`; every request needs `x-access-token:<token>`. */
export async function startGitHttpRemote(token: string): Promise<GitHttpRemote> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "closer-http-remote-")));
  const dir = join(root, "repo.git");
  await git(root, "init", "--quiet", "--bare", "--initial-branch=main", dir);
  const execPath = (await git(root, "--exec-path")).trim();
  const passwords: string[] = [];
  const server = createServer((request, response) => {
    const password = passwordOf(request);
    if (password !== undefined) passwords.push(password);
    if (password !== token) {
      response.writeHead(401, { "WWW-Authenticate": 'Basic realm="closer-test"' });
      response.end();
      return;
    }
    serveWithBackend(request, response, { root, execPath });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/repo.git`,
    dir,
    passwords,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(root, { recursive: true, force: true });
    },
  };
}

function passwordOf(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined || !header.startsWith("Basic ")) return undefined;
  const decoded = Buffer.from(header.slice("Basic ".length), "base64").toString("utf8");
  return decoded.slice(decoded.indexOf(":") + 1);
}

/** One request through `git http-backend` as a CGI program. */
function serveWithBackend(
  request: IncomingMessage,
  response: ServerResponse,
  where: { readonly root: string; readonly execPath: string },
): void {
  const url = new URL(request.url ?? "/", "http://localhost");
  const child = spawn(join(where.execPath, "git-http-backend"), [], {
    env: {
      PATH: process.env.PATH ?? "",
      GIT_PROJECT_ROOT: where.root,
      GIT_HTTP_EXPORT_ALL: "1",
      REMOTE_USER: "x-access-token",
      REMOTE_ADDR: "127.0.0.1",
      REQUEST_METHOD: request.method ?? "GET",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ""),
      CONTENT_TYPE: request.headers["content-type"] ?? "",
      ...(request.headers["content-encoding"] === undefined
        ? {}
        : { HTTP_CONTENT_ENCODING: request.headers["content-encoding"] }),
      ...(request.headers["git-protocol"] === undefined
        ? {}
        : { GIT_PROTOCOL: String(request.headers["git-protocol"]) }),
    },
    stdio: ["pipe", "pipe", "ignore"],
  });
  request.pipe(child.stdin);
  const chunks: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  child.on("close", () => {
    const output = Buffer.concat(chunks);
    const end = output.indexOf("\r\n\r\n");
    const split = end === -1 ? output.indexOf("\n\n") : end;
    const gap = end === -1 ? 2 : 4;
    const head = output.subarray(0, split).toString("utf8");
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.split(/\r?\n/)) {
      const colon = line.indexOf(":");
      if (colon === -1) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    response.writeHead(status, headers);
    response.end(output.subarray(split + gap));
  });
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await runCommand({ command: ["git", ...args], cwd, timeoutMs: 30_000 });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}
