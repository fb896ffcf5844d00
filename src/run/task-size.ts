import { formatBytes } from "../bounded-text.js";
import { CloserError, type CloserErrorFields } from "../errors.js";

/**
 * The largest task a run takes (docs/record.md#task-limit): its text goes
 * into every prompt and, whole, into the run's record; a task is words for
 * the model, and more than this is data the model should read from a file.
 */
export const MAX_TASK_BYTES = 1024 * 1024;

/** Refuses (exit 2) a task of more than MAX_TASK_BYTES, naming where it came from. */
export function refuseLargeTask(
  bytes: number,
  source: { readonly what: string; readonly file?: string; readonly fix: string },
): void {
  if (bytes <= MAX_TASK_BYTES) return;
  const fields: CloserErrorFields = {
    expected: `a task of at most ${formatBytes(MAX_TASK_BYTES)} (1 MiB)`,
    found: formatBytes(bytes),
    fix: source.fix,
  };
  throw new CloserError(
    "usage_error",
    `${source.what} is too large: ${formatBytes(bytes)}, the limit is 1 MiB`,
    source.file === undefined ? fields : { ...fields, file: source.file },
  );
}
