import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";

/** A file's text and when it was last written. */
export interface FileSnapshot {
  readonly text: string;
  readonly modifiedAtMs: number;
}

/**
 * Reads a file the run may or may not find (the agent's decision file, the
 * system prompt): undefined when it does not exist. The usual case for a
 * decision file is that it does not, which costs one `stat`.
 */
export async function readOptionalFile(path: string): Promise<FileSnapshot | undefined> {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined || !stats.isFile()) return undefined;
  try {
    return { text: await readFile(path, "utf8"), modifiedAtMs: stats.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
