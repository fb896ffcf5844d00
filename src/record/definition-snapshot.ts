import { randomUUID } from "node:crypto";
import { chmod, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { DefinitionFiles } from "../definition/definition-files.js";
import { RUN_FILES } from "./run-files.js";

export { readRecordedDefinitionHash } from "./run-folder-reader.js";

/** The folder of a run that holds its definition snapshot (docs/integrity.md#definition-snapshot). */
export function definitionSnapshotDir(runDir: string): string {
  return join(runDir, RUN_FILES.definition);
}

/**
 * Writes the agent folder's files as the run's definition snapshot, replacing
 * the one there: into a folder of its own first, then renamed into place, so
 * the snapshot is never a mix of two. Returns the snapshot's folder.
 */
export async function writeDefinitionSnapshot(
  runDir: string,
  definition: DefinitionFiles,
): Promise<string> {
  const target = definitionSnapshotDir(runDir);
  const fresh = `${target}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    for (const file of definition.files) {
      const path = join(fresh, ...file.path.split("/"));
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.content);
      await chmod(path, file.mode);
    }
    await mkdir(fresh, { recursive: true });
    const old = `${target}.${randomUUID().slice(0, 8)}.old`;
    await rename(target, old).catch(ignoreMissing);
    await rename(fresh, target);
    await rm(old, { recursive: true, force: true });
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
  return target;
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
}
