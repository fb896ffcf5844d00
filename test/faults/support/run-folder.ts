import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { readRecordedEvents } from "../../run/support/recorded-events.js";

export { readRecordedEvents };

/** The runs of a repository's default runs folder, oldest first. */
export async function runFolders(repoDir: string): Promise<string[]> {
  const runsDir = join(repoDir, ".git/closer/runs");
  const names = (await readdir(runsDir).catch(() => [] as string[])).sort();
  return names.map((name) => join(runsDir, name));
}

/** The only run folder of a repository (fails when there is not exactly one). */
export async function onlyRunFolder(repoDir: string): Promise<string> {
  const folders = await runFolders(repoDir);
  if (folders.length !== 1) throw new Error(`expected one run folder, found ${folders.length}`);
  return folders[0] as string;
}

/** run.json of a run folder, parsed. */
export async function readRunJson(runDir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(runDir, "run.json"), "utf8")) as Record<string, unknown>;
}

/** Total bytes of the files under a folder. */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}

/** The longest line of events.jsonl, in bytes. */
export async function longestEventLineBytes(runDir: string): Promise<number> {
  const text = await readFile(join(runDir, "events.jsonl"));
  let longest = 0;
  let start = 0;
  for (let index = 0; index <= text.length; index++) {
    if (index === text.length || text[index] === 0x0a) {
      longest = Math.max(longest, index - start);
      start = index + 1;
    }
  }
  return longest;
}
