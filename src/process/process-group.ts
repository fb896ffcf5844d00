import { readdir, readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";

/** Default time between SIGTERM and SIGKILL. */
export const DEFAULT_GRACE_MS = 2000;

const POLL_INTERVAL_MS = 25;

/**
 * Sends a signal to every process of the group; false when the group is gone.
 * Group ids below 2 are refused: `kill(-0)` would signal closer's own group,
 * `kill(-1)` every process it may signal.
 */
export function signalProcessGroup(processGroupId: number, signal: NodeJS.Signals | 0): boolean {
  if (!Number.isInteger(processGroupId) || processGroupId < 2) return false;
  // A group already gone is the common case (every command's group is ended after it
  // exits): its ESRCH error is thrown without the stack trace no one reads.
  const traceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(-processGroupId, signal);
    return true;
  } catch {
    return false;
  } finally {
    Error.stackTraceLimit = traceLimit;
  }
}

async function isLiveMember(statPath: string, processGroupId: number): Promise<boolean> {
  try {
    const stat = await readFile(statPath, "utf8");
    // Fields after the command name (which may itself hold spaces and parentheses).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = fields[0];
    return Number(fields[2]) === processGroupId && state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/**
 * True while some process of the group still runs. Zombies don't count: an
 * orphan whose reaper never collects it is dead but still answers `kill(0)`.
 */
export async function isProcessGroupAlive(processGroupId: number): Promise<boolean> {
  if (!signalProcessGroup(processGroupId, 0)) return false;
  if (process.platform !== "linux") return true;
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return true;
  }
  const candidates = entries.filter((entry) => /^\d+$/.test(entry));
  const live = await Promise.all(
    candidates.map((entry) => isLiveMember(`/proc/${entry}/stat`, processGroupId)),
  );
  return live.includes(true);
}

/**
 * Ends a whole process group: SIGTERM, then SIGKILL once `graceMs` has passed
 * with some member still running. Resolves when the group is gone or SIGKILL
 * has been sent. A group that no longer exists is not an error.
 */
export async function killProcessGroup(
  processGroupId: number,
  graceMs: number = DEFAULT_GRACE_MS,
): Promise<void> {
  if (!signalProcessGroup(processGroupId, "SIGTERM")) return;
  if (await waitForProcessGroupExit(processGroupId, graceMs)) return;
  signalProcessGroup(processGroupId, "SIGKILL");
}

/** Waits at most `timeoutMs` for every process of the group to end; true when they all did. */
export async function waitForProcessGroupExit(
  processGroupId: number,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await delay(Math.min(POLL_INTERVAL_MS, Math.max(0, deadline - Date.now())));
    if (!(await isProcessGroupAlive(processGroupId))) return true;
  }
  return false;
}

/** The variable closer marks each process it starts with, to find what escaped its group. */
export const PROCESS_MARK_VARIABLE = "PROCESS_TREE_MARK";

/** A process that left its group: its id and command line. */
export interface EscapedProcess {
  readonly pid: number;
  readonly command: string;
}

/**
 * Live processes whose environment holds `PROCESS_TREE_MARK=<mark>`: what a
 * command started and left running outside its (ended) process group, e.g.
 * with `setsid` (docs/loop.md#left-running). A process that cleared its
 * environment is not found. Reads /proc, so it finds nothing off Linux.
 */
export async function findMarkedProcesses(mark: string): Promise<EscapedProcess[]> {
  let entries: string[];
  try {
    entries = (await readdir("/proc")).filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  const needle = `\0${PROCESS_MARK_VARIABLE}=${mark}\0`;
  const found = await Promise.all(
    entries.map(async (entry) => {
      try {
        const environ = `\0${await readFile(`/proc/${entry}/environ`, "utf8")}`;
        if (!environ.includes(needle)) return undefined;
        const stat = await readFile(`/proc/${entry}/stat`, "utf8");
        const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
        if (state === "Z" || state === "X") return undefined;
        const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8");
        return { pid: Number(entry), command: cmdline.split("\0").join(" ").trim() };
      } catch {
        return undefined;
      }
    }),
  );
  return found.filter((process) => process !== undefined);
}

/**
 * Ends a pipe from this side: its reader gets what was buffered, then its
 * end (a destroyed stream would leave a line reader waiting for ever), and
 * the pipe is closed.
 */
export function stopReading(stream: Readable | null | undefined): void {
  if (!stream || stream.destroyed || stream.readableEnded) return;
  stream.on("error", () => {}); // what the escaped process writes after the end is dropped
  stream.push(null);
  const close = () => stream.destroy();
  stream.once("end", close);
  setTimeout(close, STOP_READING_MS).unref();
}

/** The longest a pipe ended from this side waits for its reader before it is closed. */
const STOP_READING_MS = 1000;
