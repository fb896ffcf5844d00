import { acquireLock, runLockKey } from "../workspace/index.js";

/**
 * Does `work` holding the lock of run `runId` (docs/integrity.md#run-lock), so
 * a run has one live process: a second one — a resume of a run still going —
 * is refused with `lock_error`. `work` gets the warning of a stale lock
 * recovered (the process of a killed run).
 */
export async function withRunLock<T>(
  cwd: string,
  runId: string,
  work: (warnings: readonly string[]) => Promise<T>,
): Promise<T> {
  const { lock, warnings } = await acquireLock({ cwd, key: runLockKey(runId), runId });
  try {
    return await work(warnings);
  } finally {
    await lock.release();
  }
}
