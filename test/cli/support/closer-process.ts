import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runProgram } from "../../support/run-program.js";

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
  return runProgram(options.node ?? process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...(options.env ?? process.env), NO_COLOR: "1" },
  });
}
