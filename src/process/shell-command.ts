/**
 * The only module that spawns processes. Every command runs in its own
 * process group, so a timeout or an abort ends the command together with
 * everything it started (docs/loop.md#rule-5).
 *
 * Built on `node:child_process` directly: the checks spawn short commands
 * many times a run, and a general-purpose wrapper's per-call machinery
 * (streams, transforms, promise chains) cost more time and memory than the
 * commands themselves.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { constants } from "node:os";
import { performance } from "node:perf_hooks";
import type { Readable } from "node:stream";
import type { LaunchWrapper } from "../ports/process.js";
import { closeInputFile, openInputFile } from "./input-file.js";
import { unwrapExit } from "./launch.js";
import { OutputCapture } from "./output-capture.js";
import {
  DEFAULT_GRACE_MS,
  type EscapedProcess,
  findMarkedProcesses,
  killProcessGroup,
  PROCESS_MARK_VARIABLE,
  stopReading,
} from "./process-group.js";

export { isProcessGroupAlive, killProcessGroup } from "./process-group.js";

/** Output beyond this is dropped by the capture itself; far above any sane command. */
const MAX_BUFFER_BYTES = 256 * 1024 * 1024;
/**
 * What a check or a model's command keeps of each of stdout and stderr: its
 * first and last 4 MiB (docs/record.md#bounded-record). A command that prints
 * 50 MB costs closer this much memory, not the 50 MB.
 */
export const COMMAND_OUTPUT_BYTES = 8 * 1024 * 1024;
/** Extra wait after SIGKILL before giving up on pipes held open by an escaped process. */
const PIPE_RELEASE_MS = 1000;

/**
 * Once the command exited and its group is gone, the time its pipes get to deliver what is
 * buffered before closer stops waiting for them (docs/loop.md#left-running).
 */
const PIPE_DRAIN_MS = 1000;

export interface CommandOptions {
  /** A string runs through `/bin/sh -c`; an array runs the file directly with its arguments. */
  readonly command: string | readonly string[];
  readonly cwd: string;
  /** Added to closer's own environment (or, with `inheritEnv: false`, the whole environment). */
  readonly env?: Readonly<Record<string, string>>;
  /** False: the command gets `env` alone, not closer's environment plus `env` (default true). */
  readonly inheritEnv?: boolean;
  /**
   * The command's stdin, whole, from a file (never a pipe: docs/loop.md#command-input);
   * without it stdin is empty.
   */
  readonly input?: string;
  readonly timeoutMs: number;
  /** Aborting ends the whole process group, like a timeout. */
  readonly signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL (default 2000). */
  readonly graceMs?: number;
  /**
   * Opens fd 3 of the command as a pipe of its own: what the command writes
   * there is the result's `report`, apart from stdout and stderr.
   */
  readonly reportPipe?: boolean;
  /** What is kept of each of stdout and stderr: head and tail (default 256 MiB, e.g. COMMAND_OUTPUT_BYTES). */
  readonly maxOutputBytes?: number;
  /** Runs the command inside the run's OS sandbox (docs/sandbox.md). */
  readonly sandbox?: LaunchWrapper;
}

/** What a finished command left behind. A non-zero exit is a value, never an exception. */
export interface CommandResult {
  /** The exit code; 128+N when ended by signal N; 127/126 when the file can't be found/run. */
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** Name of the signal that ended the command, e.g. `SIGTERM`. */
  readonly signal?: string;
  /** What the command wrote to fd 3, when it was opened (`reportPipe`). */
  readonly report?: string;
  /**
   * Processes the command started that left its process group and held its pipes open after it
   * ended; closer stopped waiting for them and did not end them (docs/loop.md#left-running).
   */
  readonly leftRunning?: readonly EscapedProcess[];
}

/** A command still running: its stdout lines as they come, and its result when it ends. */
export interface RunningCommand {
  readonly pid: number | undefined;
  /** Lines of stdout (without line ends); the result still holds the whole stdout. */
  readonly lines: AsyncIterable<string>;
  readonly result: Promise<CommandResult>;
  /** Ends the whole process group (SIGTERM, then SIGKILL); the result reports `aborted`. */
  kill(): void;
}

type StopReason = "timeout" | "abort";

function spawnChild(options: CommandOptions, mark: string): ChildProcess {
  const { command } = options;
  const isShell = typeof command === "string";
  const file = isShell ? "/bin/sh" : command[0];
  if (file === undefined || file === "" || command === "") {
    throw new TypeError("runCommand: the command is empty");
  }
  const direct = {
    file,
    args: isShell ? ["-c", command] : command.slice(1),
    env: { ...environmentOf(options), [PROCESS_MARK_VARIABLE]: mark },
    cwd: options.cwd,
  };
  const launch = options.sandbox?.(direct) ?? direct;
  const input = options.input === undefined ? undefined : openInputFile(options.input);
  try {
    return spawn(launch.file, launch.args, {
      cwd: options.cwd,
      env: launch.env,
      detached: true,
      stdio: [input ?? "ignore", "pipe", "pipe", ...(options.reportPipe ? ["pipe" as const] : [])],
    });
  } finally {
    closeInputFile(input); // the command has its own copy
  }
}

function environmentOf(options: CommandOptions): NodeJS.ProcessEnv {
  if (options.inheritEnv === false) return { ...options.env };
  return options.env === undefined ? process.env : { ...process.env, ...options.env };
}

/** 128+N for signal N; for a file that never started, what a shell would report. */
function exitCodeOf(code: number | null, signal: string | null, spawnError?: Error): number {
  if (spawnError !== undefined) {
    return (spawnError as NodeJS.ErrnoException).code === "EACCES" ? 126 : 127;
  }
  if (code !== null) return code;
  return 128 + (constants.signals[signal as NodeJS.Signals] ?? 0);
}

/** Starts a command; see {@link runCommand} for the rules it runs by. */
export function startCommand(options: CommandOptions): RunningCommand {
  const startedMs = performance.now();
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const mark = randomBytes(8).toString("hex");
  const child = spawnChild(options, mark);
  const { pid } = child;
  const stdout = new OutputCapture(options.maxOutputBytes ?? MAX_BUFFER_BYTES);
  const stderr = new OutputCapture(options.maxOutputBytes ?? MAX_BUFFER_BYTES);
  child.stdout?.on("data", (chunk: Buffer) => stdout.add(chunk));
  child.stderr?.on("data", (chunk: Buffer) => stderr.add(chunk));
  const reportPipe = options.reportPipe ? (child.stdio[3] as Readable | null) : null;
  const report = reportPipe ? new OutputCapture(MAX_BUFFER_BYTES) : undefined;
  reportPipe?.on("data", (chunk: Buffer) => report?.add(chunk));
  let stopReason: StopReason | undefined;
  let releaseTimer: NodeJS.Timeout | undefined;
  let spawnError: Error | undefined;
  let settled = false;
  let leftRunning: EscapedProcess[] = [];
  // Pipes still open after the group is gone are held by a process that escaped it: name it, stop waiting.
  const releasePipes = async () => {
    if (settled) return;
    leftRunning = await findMarkedProcesses(mark);
    for (const pipe of [child.stdout, child.stderr, reportPipe]) stopReading(pipe);
  };
  const releaseAfter = (ms: number) => {
    clearTimeout(releaseTimer);
    releaseTimer = setTimeout(() => void releasePipes(), ms);
  };
  const stop = (reason: StopReason) => {
    if (stopReason !== undefined || settled) return;
    stopReason = reason;
    if (pid !== undefined) void killProcessGroup(pid, graceMs);
    releaseAfter(graceMs + PIPE_RELEASE_MS);
  };
  const onAbort = () => stop("abort");
  const timeoutTimer = setTimeout(() => stop("timeout"), options.timeoutMs);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) stop("abort");
  // Background leftovers of a finished command must not hold its pipes open.
  child.once("exit", () => {
    clearTimeout(timeoutTimer);
    if (stopReason !== undefined || pid === undefined) return;
    void killProcessGroup(pid, graceMs).then(() => {
      if (!settled) releaseAfter(PIPE_DRAIN_MS);
    });
  });
  child.once("error", (error) => {
    spawnError ??= error;
  });
  const result = new Promise<CommandResult>((resolve) => {
    // `close` comes once the process has ended and its pipes are closed (or destroyed).
    child.once("close", (exitCode: number | null, exitSignal: NodeJS.Signals | null) => {
      const { code, signal } = unwrapExit(exitCode, exitSignal, options.sandbox !== undefined);
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(releaseTimer);
      options.signal?.removeEventListener("abort", onAbort);
      stdout.end();
      stderr.end();
      const stderrText = stderr.text();
      resolve({
        exitCode: exitCodeOf(code, signal, spawnError),
        stdout: stdout.text(),
        stderr: spawnError !== undefined && stderrText === "" ? spawnError.message : stderrText,
        durationMs: Math.round(performance.now() - startedMs),
        timedOut: stopReason === "timeout",
        aborted: stopReason === "abort",
        ...(signal === null ? {} : { signal }),
        ...(report === undefined ? {} : { report: report.text() }),
        ...(leftRunning.length === 0 ? {} : { leftRunning }),
      });
    });
  });
  return { pid, lines: stdout.lines(), result, kill: () => stop("abort") };
}

/**
 * Runs a command to its end and captures its whole output. It runs in its
 * own process group; on timeout or abort the whole group gets SIGTERM, then
 * SIGKILL after `graceMs`. Never throws for a non-zero exit.
 */
export function runCommand(options: CommandOptions): Promise<CommandResult> {
  return startCommand(options).result;
}
