import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The shipped command (`npm run build` makes it). */
export const BIN = fileURLToPath(new URL("../../../dist/bin/closer.js", import.meta.url));

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ProcessOptions {
  readonly cwd?: string;
  /** The whole environment of the process (default: this one's, without colour). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The Node that runs closer (default: this one). */
  readonly node?: string;
}

/** Runs `node dist/bin/closer.js ...args` as a process of its own and collects what it writes. */
export function runCloser(
  args: readonly string[],
  options: ProcessOptions = {},
): Promise<ProcessResult> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build first`);
  const child = spawn(options.node ?? process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...(options.env ?? process.env), NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
