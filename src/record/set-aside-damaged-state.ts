import { rename } from "node:fs/promises";
import { join } from "node:path";
import { RUN_FILES } from "./run-files.js";

/** Keeps a damaged run.json beside the run's rebuilt one, as run.json.damaged (docs/record.md#rebuild). */
export async function setAsideDamagedState(runDir: string): Promise<void> {
  const file = join(runDir, RUN_FILES.state);
  await rename(file, `${file}.damaged`).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  });
}
