import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, ping, type TestRedis } from "./redis-server.js";

/** A real redis-server that keeps its data on disk and can be stopped and started again. */
export interface RestartableRedis extends TestRedis {
  /**
   * SIGTERM, as `docker stop` or a service manager sends it: Redis writes its data set to disk
   * and exits. Resolves once it has exited.
   */
  halt(): Promise<void>;
  /** Starts it again on the same port, from what it wrote; resolves once it answers PING. */
  start(): Promise<void>;
  /** True while a server answers. */
  running(): boolean;
}

export type RestartableRedisStart =
  | { readonly redis: RestartableRedis; readonly missing?: undefined }
  | { readonly redis?: undefined; readonly missing: string };

/**
 * Starts `redis-server` with snapshots on, as a distribution's or Docker's Redis runs out of
 * the box (`--save "3600 1 300 100 60 10000"`, in a folder of its own): a SIGTERM makes it save
 * before it exits, so a restart finds every job and lock as they were. When it cannot be
 * started, says why instead, so the caller skips its tests.
 */
export async function startRestartableRedis(timeoutMs = 15_000): Promise<RestartableRedisStart> {
  const port = await freePort();
  const dir = await realpath(await mkdtemp(join(tmpdir(), "closer-redis-")));
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const launch = async (): Promise<string | undefined> => {
    let failed: string | undefined;
    try {
      child = spawn(
        "redis-server",
        [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--dir",
          dir,
          "--save",
          "3600 1 300 100 60 10000",
          "--appendonly",
          "no",
        ],
        { stdio: "ignore" },
      );
    } catch (error) {
      return `redis-server could not be started: ${(error as Error).message}`;
    }
    const started = child;
    exited = new Promise((resolve) => started.once("exit", () => resolve()));
    started.once("error", (error) => {
      failed = `redis-server could not be started: ${error.message}`;
    });
    started.once("exit", (code) => {
      failed ??= `redis-server exited with code ${code}`;
    });
    const deadline = Date.now() + timeoutMs;
    while (failed === undefined && Date.now() < deadline) {
      if (await ping(port)) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    started.kill("SIGKILL");
    return failed ?? `redis-server did not answer PING on port ${port}`;
  };

  const isRunning = () =>
    child !== undefined && child.exitCode === null && child.signalCode === null;
  const halt = async (signal: NodeJS.Signals) => {
    if (!isRunning()) return;
    child?.kill(signal);
    await exited;
  };

  const missing = await launch();
  if (missing !== undefined) {
    await rm(dir, { recursive: true, force: true });
    return { missing };
  }
  return {
    redis: {
      url: `redis://127.0.0.1:${port}`,
      port,
      halt: () => halt("SIGTERM"),
      start: async () => {
        const problem = await launch();
        if (problem !== undefined) throw new Error(problem);
      },
      running: isRunning,
      stop: async () => {
        await halt("SIGKILL");
        await rm(dir, { recursive: true, force: true });
      },
    },
  };
}
