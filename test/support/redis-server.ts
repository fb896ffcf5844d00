import { type ChildProcess, spawn } from "node:child_process";
import { connect, createServer } from "node:net";

/** A real redis-server on a free loopback port, for one test file. */
export interface TestRedis {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** The result of trying to start one: the server, or why there is none. */
export type TestRedisStart =
  | { readonly redis: TestRedis; readonly missing?: undefined }
  | { readonly redis?: undefined; readonly missing: string };

/** A port the kernel just handed out and released. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

export function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (chunk) => done(chunk.toString().startsWith("+PONG")));
  });
}

/**
 * Starts `redis-server --port P --save "" --appendonly no` (nothing written to
 * disk) and waits until it answers PING. When it cannot be started (not
 * installed, or it exits), says why instead, so the caller skips its tests.
 */
export async function startTestRedis(timeoutMs = 15_000): Promise<TestRedisStart> {
  const port = await freePort();
  let child: ChildProcess;
  let exited: string | undefined;
  try {
    child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
  } catch (error) {
    return { missing: `redis-server could not be started: ${(error as Error).message}` };
  }
  child.once("error", (error) => {
    exited = `redis-server could not be started: ${error.message}`;
  });
  child.once("exit", (code) => {
    exited ??= `redis-server exited with code ${code}`;
  });
  const deadline = Date.now() + timeoutMs;
  while (exited === undefined && Date.now() < deadline) {
    if (await ping(port)) {
      return {
        redis: {
          url: `redis://127.0.0.1:${port}`,
          port,
          stop: async () => {
            if (child.exitCode !== null || child.signalCode !== null) return;
            const gone = new Promise((resolve) => child.once("exit", resolve));
            child.kill("SIGKILL");
            await gone;
          },
        },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGKILL");
  return { missing: exited ?? `redis-server did not answer PING on port ${port}` };
}
