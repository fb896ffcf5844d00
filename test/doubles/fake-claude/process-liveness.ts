/** Whether a process still runs, for "no child left running" assertions. */
import { readFileSync } from "node:fs";
import { findMarkedProcesses } from "../../../src/process/process-group.js";

/**
 * The processes still running of the groups closer marked with `marks` (each process it starts
 * and everything that process starts carry the mark), found from outside any sandbox.
 */
export async function liveMarkedProcesses(marks: readonly string[]): Promise<number[]> {
  const found = await Promise.all(marks.map((mark) => findMarkedProcesses(mark)));
  return found.flat().map((process) => process.pid);
}

/**
 * True while the process exists and is not a zombie. Where nothing reaps
 * orphans (a container without an init), a killed child stays a zombie: it
 * runs nothing, so it counts as gone.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}

/** Polls until `condition` holds or `timeoutMs` passes; returns whether it held. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() >= deadline) return false;
    await new Promise((done) => setTimeout(done, 20));
  }
  return true;
}
