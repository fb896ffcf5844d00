import { CloserError } from "../errors.js";

/** What to do about a run record that cannot be written, by the system's error code. */
function fixFor(code: string | undefined, runDir: string): string {
  switch (code) {
    case "ENOSPC":
    case "EDQUOT":
      return "free space on the disk of the runs folder (or choose another with --runs-dir), then resume the run";
    case "EACCES":
    case "EPERM":
      return `make ${runDir} and its runs folder writable for closer (or choose another runs folder with --runs-dir)`;
    case "EROFS":
      return "the runs folder is on a read-only file system; choose another with --runs-dir or runner.logging.runsDir";
    case "ENOENT":
      return `the run folder ${runDir} was removed while the run went on; keep it until the run ends, and start a new run`;
    default:
      return "check the runs folder (--runs-dir) and the disk it is on";
  }
}

/** Why a write failed, in words: `no space left on the disk (ENOSPC)`. */
function causeOf(error: unknown): { code: string | undefined; words: string } {
  const code = (error as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    ENOSPC: "no space left on the disk",
    EDQUOT: "the disk quota is used up",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EROFS: "read-only file system",
    ENOENT: "the run folder no longer exists",
  };
  const message = error instanceof Error ? error.message : String(error);
  return { code, words: code === undefined ? message : `${words[code] ?? message} (${code})` };
}

/**
 * A write of the run record that failed, as the error that ends the run
 * (docs/record.md#record-failure): the file, the cause, and the fix.
 */
export function recordWriteError(file: string, runDir: string, error: unknown): CloserError {
  const { code, words } = causeOf(error);
  return new CloserError("record_error", `the run record cannot be written: ${words}`, {
    file,
    found: words,
    fix: fixFor(code, runDir),
    cause: error,
  });
}
