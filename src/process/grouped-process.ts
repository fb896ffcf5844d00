/**
 * A long-lived process with open pipes, for a caller that talks to it (the
 * Claude Agent SDK drives Claude Code over stdin/stdout). It runs in a
 * process group of its own, so ending it ends everything it started, and
 * nothing is left running once it is settled.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import type { LaunchWrapper } from "../ports/process.js";
import { unwrapExit } from "./launch.js";
import {
  type EscapedProcess,
  findMarkedProcesses,
  isProcessGroupAlive,
  killProcessGroup,
  PROCESS_MARK_VARIABLE,
  signalProcessGroup,
  stopReading,
  waitForProcessGroupExit,
} from "./process-group.js";

/** Keeps the last this many characters of stderr. */
const STDERR_TAIL_CHARS = 64 * 1024;

/**
 * Once the process exited and its group is gone, the time its pipes get to deliver what is
 * buffered before they are closed from this side (docs/loop.md#left-running).
 */
const PIPE_DRAIN_MS = 1000;

export interface GroupedProcessOptions {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  /** The process's whole environment; closer's own is not added. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Time between SIGTERM and SIGKILL, and the longest each wait for the end takes. */
  readonly graceMs: number;
  /** Runs the process inside the run's OS sandbox (docs/sandbox.md). */
  readonly sandbox?: LaunchWrapper;
}

/** The running process as its caller talks to it; `kill` reaches the whole group. */
export interface GroupedChild {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly killed: boolean;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  kill(signal: NodeJS.Signals): boolean;
  // biome-ignore lint/suspicious/noExplicitAny: forwards listeners of ChildProcess's overloads unchanged
  on(event: string, listener: (...args: any[]) => void): void;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  once(event: string, listener: (...args: any[]) => void): void;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  off(event: string, listener: (...args: any[]) => void): void;
}

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: string | null;
}

export interface GroupedProcess {
  readonly child: GroupedChild;
  /** Id of the process, and of its group; undefined when it could not be started. */
  readonly pid: number | undefined;
  /** SIGTERM to the whole group, SIGKILL after the grace period; resolves when the group is gone. */
  terminate(): Promise<void>;
  /** Waits for the process to exit, then ends whatever it left in its group. */
  settle(): Promise<void>;
  /** The tail of what the process wrote to stderr. */
  stderr(): string;
  /** How the process ended; undefined while it runs or when it never started. */
  exit(): ProcessExit | undefined;
  /** Processes it started outside its group that held its pipes after it ended (docs/loop.md#left-running). */
  leftRunning(): readonly EscapedProcess[];
}

/** Waits for `promise`, at most `ms`; the timer does not outlive the wait. */
async function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((done) => {
    timer = setTimeout(done, ms);
  });
  await Promise.race([promise, timeout]);
  clearTimeout(timer);
}

function asGroupedChild(child: ChildProcess, stdin: Writable, stdout: Readable): GroupedChild {
  return {
    stdin,
    stdout,
    get killed() {
      return child.killed;
    },
    get exitCode() {
      return child.exitCode;
    },
    get signalCode() {
      return child.signalCode;
    },
    kill(signal) {
      if (child.pid !== undefined && !signalProcessGroup(child.pid, signal)) child.kill(signal);
      return true;
    },
    on: (event, listener) => void child.on(event, listener),
    once: (event, listener) => void child.once(event, listener),
    off: (event, listener) => void child.off(event, listener),
  };
}

/** Starts `file` with piped stdio as the leader of a new process group. */
export function startGroupedProcess(options: GroupedProcessOptions): GroupedProcess {
  const mark = randomBytes(8).toString("hex");
  const direct = {
    file: options.file,
    args: options.args,
    env: { ...options.env, [PROCESS_MARK_VARIABLE]: mark },
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  };
  const launch = options.sandbox?.(direct) ?? direct;
  const child = spawn(launch.file, launch.args, {
    cwd: options.cwd,
    env: launch.env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
    windowsHide: true,
  });
  let stderrTail = "";
  let ended: ProcessExit | undefined;
  child.once("exit", (code, signal) => {
    ended = unwrapExit(code, signal, options.sandbox !== undefined);
  });
  // `close` comes after the exit and after stderr was read to its end.
  let isClosed = false;
  const closed = new Promise<void>((done) => {
    child.once("close", () => done());
    child.once("error", () => done());
  }).then(() => {
    isClosed = true;
  });
  let leftRunning: EscapedProcess[] = [];
  // Once the process and its group are gone, pipes still open are held by a process that escaped.
  const releasePipes = async () => {
    if (isClosed) return;
    leftRunning = await findMarkedProcesses(mark);
    for (const pipe of [child.stdout, child.stderr]) stopReading(pipe);
  };
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
  });

  const endGroup = async () => {
    const groupId = child.pid;
    if (groupId === undefined) return;
    await killProcessGroup(groupId, options.graceMs);
    if (await isProcessGroupAlive(groupId)) await waitForProcessGroupExit(groupId, options.graceMs);
  };
  child.once("exit", () => {
    void endGroup().then(() => {
      if (!isClosed) setTimeout(() => void releasePipes(), PIPE_DRAIN_MS).unref();
    });
  });

  if (!child.stdin || !child.stdout) {
    void endGroup();
    throw new Error(`${options.file} was started without stdio pipes`);
  }
  return {
    child: asGroupedChild(child, child.stdin, child.stdout),
    pid: child.pid,
    async terminate() {
      await endGroup();
      await waitAtMost(closed, options.graceMs);
    },
    async settle() {
      await waitAtMost(closed, options.graceMs);
      await endGroup();
    },
    stderr: () => stderrTail,
    exit: () => ended,
    leftRunning: () => leftRunning,
  };
}
