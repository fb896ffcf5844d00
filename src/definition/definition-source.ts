import { readFile } from "node:fs/promises";
import path from "node:path";
import type { DefinitionFiles } from "../ports/agent.js";
import { readDefinitionFiles } from "./definition-files.js";

/**
 * Where the loader takes agent.json and the registry from: the agent folder's
 * files read once (docs/integrity.md#definition-snapshot), else the disk.
 */
export interface DefinitionSource {
  /** The agent folder. */
  readonly dir: string;
  readonly files?: DefinitionFiles;
  /** Set when a definition file was not among `files` and was read from the disk. */
  readFromDisk: boolean;
}

/**
 * Every file of the agent folder, or undefined when it cannot be read whole
 * (missing, unreadable, too large): the agent is then loaded file by file,
 * and a run meets the error when it copies the folder, as it would without this read.
 */
export async function readWholeFolder(dir: string): Promise<DefinitionFiles | undefined> {
  return await readDefinitionFiles(dir).catch(() => undefined);
}

/** The text of `file` (absolute, inside the agent folder): from the files read, else from the disk. */
export async function readSourceText(source: DefinitionSource, file: string): Promise<string> {
  const relative = path.relative(source.dir, file).split(path.sep).join("/");
  const found = source.files?.files.find((entry) => entry.path === relative);
  if (found !== undefined) return found.content.toString("utf8");
  // Not among the files (a symlink out of the folder, a folder): read as it always was, errors included.
  source.readFromDisk = true;
  return await readFile(file, "utf8");
}
