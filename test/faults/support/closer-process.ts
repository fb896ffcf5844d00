import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));
const TSX_LOADER = new URL("../../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

/** closer started as a user starts it: its own process, its own stdout and stderr. */
export interface CloserProcess {
  readonly child: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (128 + n for a signal) and the signal's name, if any. */
  readonly exited: Promise<{ code: number; signal: NodeJS.Signals | null }>;
  /** Resolves once stderr holds `text`. */
  waitForStderr(text: string | RegExp): Promise<void>;
}

export function startCloser(
  args: readonly string[],
  options: { cwd: string; env?: Readonly<Record<string, string | undefined>> },
): CloserProcess {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, MAIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters: { test: (text: string) => boolean; resolve: () => void }[] = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
    for (const waiter of [...waiters]) {
      if (waiter.test(err)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  const exited = new Promise<{ code: number; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("close", (code, signal) => resolve({ code: code ?? 128, signal }));
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForStderr: (text) => {
      const test = (all: string) =>
        typeof text === "string" ? all.includes(text) : text.test(all);
      if (test(err)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
}
