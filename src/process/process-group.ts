import { readdir, readFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";

/** Default time between SIGTERM and SIGKILL. */
export const DEFAULT_GRACE_MS = 2000;

const POLL_INTERVAL_MS = 25;

/** Sends a signal to every process of the group; false when the group is gone. */
export function signalProcessGroup(processGroupId: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-processGroupId, signal);
    return true;
  } catch {
    return false;
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
