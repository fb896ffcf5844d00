/**
 * The only module that spawns processes. Every command runs in its own
 * process group, so a timeout or an abort ends the command together with
 * everything it started (SPEC §3 rule 5).
 */
import { constants } from "node:os";
import { performance } from "node:perf_hooks";
import { execa, type Result } from "execa";
import { makeLineIterable } from "./line-iterable.js";
import { DEFAULT_GRACE_MS, killProcessGroup } from "./process-group.js";

export { DEFAULT_GRACE_MS, isProcessGroupAlive, killProcessGroup } from "./process-group.js";

/** Output beyond this is cut by the capture itself; far above any sane command. */
const MAX_BUFFER_BYTES = 256 * 1024 * 1024;
/** Extra wait after SIGKILL before giving up on pipes held open by an escaped process. */
const PIPE_RELEASE_MS = 1000;

export interface CommandOptions {
  /** A string runs through `/bin/sh -c`; an array runs the file directly with its arguments. */
  readonly command: string | readonly string[];
  readonly cwd: string;
  /** Added to closer's own environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed; without it stdin is empty. */
  readonly input?: string;
  readonly timeoutMs: number;
  /** Aborting ends the whole process group, like a timeout. */
  readonly signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL (default 2000). */
  readonly graceMs?: number;
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

function exitCodeOf(result: Result): number {
  if (result.exitCode !== undefined) return result.exitCode;
  if (result.signal !== undefined) {
    return 128 + (constants.signals[result.signal as NodeJS.Signals] ?? 0);
  }
  // The process never started: report it the way a shell would.
  const code = (result.cause as NodeJS.ErrnoException | undefined)?.code;
  return code === "EACCES" ? 126 : 127;
}

function stderrOf(result: Result): string {
  const stderr = typeof result.stderr === "string" ? result.stderr : "";
  if (stderr !== "" || result.exitCode !== undefined || result.signal !== undefined) return stderr;
  return result.shortMessage ?? "";
}

function spawn(options: CommandOptions) {
  const { command } = options;
  const isShell = typeof command === "string";
  const file = isShell ? command : command[0];
  if (file === undefined || file === "") throw new TypeError("runCommand: the command is empty");
  const args = isShell ? [] : command.slice(1);
  return execa(file, args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: true,
    shell: isShell ? "/bin/sh" : false,
    detached: true,
    reject: false,
    maxBuffer: MAX_BUFFER_BYTES,
    stripFinalNewline: false,
    encoding: "utf8",
    windowsHide: true,
    ...(options.input === undefined ? { stdin: "ignore" as const } : { input: options.input }),
  });
}

/** Starts a command; see {@link runCommand} for the rules it runs by. */
export function startCommand(options: CommandOptions): RunningCommand {
  const startedMs = performance.now();
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const subprocess = spawn(options);
  const { pid } = subprocess;
  const lines = makeLineIterable(subprocess.stdout);
  let stopReason: StopReason | undefined;
  let releaseTimer: NodeJS.Timeout | undefined;
  let settled = false;

  const stop = (reason: StopReason) => {
    if (stopReason !== undefined || settled) return;
    stopReason = reason;
    if (pid !== undefined) void killProcessGroup(pid, graceMs);
    releaseTimer = setTimeout(() => {
      subprocess.stdout?.destroy();
      subprocess.stderr?.destroy();
    }, graceMs + PIPE_RELEASE_MS);
  };
  const onAbort = () => stop("abort");
  const timeoutTimer = setTimeout(() => stop("timeout"), options.timeoutMs);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) stop("abort");
  // Background leftovers of a finished command must not hold its pipes open.
  subprocess.once("exit", () => {
    if (stopReason === undefined && pid !== undefined) void killProcessGroup(pid, graceMs);
  });

  const cleanUp = () => {
    settled = true;
    clearTimeout(timeoutTimer);
    clearTimeout(releaseTimer);
    options.signal?.removeEventListener("abort", onAbort);
  };
  const result = subprocess.finally(cleanUp).then((finished): CommandResult => {
    return {
      exitCode: exitCodeOf(finished),
      stdout: typeof finished.stdout === "string" ? finished.stdout : "",
      stderr: stderrOf(finished),
      durationMs: Math.round(performance.now() - startedMs),
      timedOut: stopReason === "timeout",
      aborted: stopReason === "abort",
      ...(finished.signal === undefined ? {} : { signal: finished.signal }),
    };
  });
  return { pid, lines, result, kill: () => stop("abort") };
}

/**
 * Runs a command to its end and captures its whole output. It runs in its
 * own process group; on timeout or abort the whole group gets SIGTERM, then
 * SIGKILL after `graceMs`. Never throws for a non-zero exit.
 */
export function runCommand(options: CommandOptions): Promise<CommandResult> {
  return startCommand(options).result;
}
