import { randomUUID } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CloserError } from "../errors.js";
import { recordWriteError } from "./record-write-error.js";

/**
 * Makes sure a run can keep its record before anything of it starts
 * (docs/record.md#record-failure): the runs folder exists, or can be made,
 * and takes a file. Otherwise a `record_error` naming the folder and the fix.
 */
export async function ensureRunsDirWritable(runsDir: string): Promise<void> {
  const probe = join(runsDir, `.write-check-${randomUUID().slice(0, 8)}`);
  try {
    await mkdir(runsDir, { recursive: true });
    await writeFile(probe, "");
  } catch (error) {
    const cause = recordWriteError(probe, runsDir, error);
    throw new CloserError("record_error", `the runs folder ${runsDir} is not writable`, {
      file: runsDir,
      found: cause.fields.found ?? "",
      fix: `make ${runsDir} writable for closer, or choose another runs folder with --runs-dir (or runner.logging.runsDir in agent.json)`,
      cause: error,
    });
  } finally {
    await rm(probe, { force: true }).catch(() => undefined);
  }
}
