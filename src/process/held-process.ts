/**
 * A process that only holds something open for others (a held sandbox's holder,
 * docs/sandbox.md#held-sandbox): no input, its output read by the caller, in a process group
 * of its own that ending it ends whole.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { signalProcessGroup } from "./process-group.js";

export interface HeldProcess {
  readonly pid: number | undefined;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves with how it ended, when it ends. */
  readonly ended: Promise<string>;
  /** Ends the process and its group at once. */
  end(): Promise<void>;
}

export interface HeldProcessOptions {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Its whole environment; closer's own is not added. */
  readonly env: Readonly<Record<string, string>>;
}

export function startHeldProcess(options: HeldProcessOptions): HeldProcess {
  const child = spawn(options.file, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const ended = new Promise<string>((resolve) => {
    child.once("error", (error) => resolve(error.message));
    child.once("exit", (code, signal) => resolve(signal ?? `exit ${code}`));
  });
  return {
    pid: child.pid,
    stdout: child.stdout as Readable,
    stderr: child.stderr as Readable,
    ended,
    end: () => endGroup(child, ended),
  };
}

async function endGroup(child: ChildProcess, ended: Promise<string>): Promise<void> {
  child.stdout?.destroy();
  child.stderr?.destroy();
  // The group may outlive its first process: what it started is ended all the same.
  const signalled = child.pid !== undefined && signalProcessGroup(child.pid, "SIGKILL");
  if (!signalled && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await ended;
}
