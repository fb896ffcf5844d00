import { acquireLock, type GitPlace, runLockKey } from "../workspace/index.js";

/** The project folder a run starts in, and where it is in git (read once: readGitPlace). */
export interface RunFolder {
  readonly cwd: string;
  readonly place: GitPlace;
}

/**
 * Does `work` holding the lock of run `runId` (docs/integrity.md#run-lock), so
 * a run has one live process: a second one — a resume of a run still going —
 * is refused with `lock_error`. `work` gets the warning of a stale lock
 * recovered (the process of a killed run).
 */
export async function withRunLock<T>(
  folder: RunFolder,
  runId: string,
  work: (warnings: readonly string[]) => Promise<T>,
): Promise<T> {
  const { cwd, place } = folder;
  const { lock, warnings } = await acquireLock({ cwd, place, key: runLockKey(runId), runId });
  try {
    return await work(warnings);
  } finally {
    await lock.release();
  }
}
