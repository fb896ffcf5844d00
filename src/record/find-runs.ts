import { readdir } from "node:fs/promises";
import { join } from "node:path";

/** A run folder found in the runs folder. */
export interface FoundRun {
  readonly runId: string;
  readonly runDir: string;
}

/**
 * The run folders of a runs folder, newest first (docs/observe.md#runs): a run id
 * starts with its UTC start time, so the names sort by it. A missing folder has none.
 */
export async function findRuns(runsDir: string): Promise<FoundRun[]> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(runsDir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))
    .map((runId) => ({ runId, runDir: join(runsDir, runId) }));
}
