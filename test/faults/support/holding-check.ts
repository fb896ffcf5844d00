import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FaultRepo, makeFaultRepo } from "./fault-repo.js";

/** A check that, while `.closer/hold` is there, writes its process mark and waits to be stopped. */
const HOLDING_CHECK = `import { existsSync, writeFileSync } from "node:fs";
if (process.env.CLOSER_CHECK_ID !== "baseline" && existsSync(".closer/hold")) {
  writeFileSync(".closer/check-mark", process.env.CLOSER_PROCESS_MARK ?? "none");
  await new Promise((resolve) => setTimeout(resolve, 600_000));
}
console.log("ok 1 - widgets work");
`;

/**
 * A fault repository whose one check passes on the baseline and, once
 * `holdChecks` was called, holds until it is stopped, its process mark in
 * `.closer/check-mark`.
 */
export function makeHoldingCheckRepo(): Promise<FaultRepo> {
  return makeFaultRepo({
    files: { "holding-check.mjs": HOLDING_CHECK },
    validators: {
      "holding-check": {
        type: "command",
        command: "node holding-check.mjs",
        successWhen: "exitCode:0",
        failurePattern: "check-failed",
        extractParams: { errorOutput: "stderr" },
        // It reads an ignored file and the check id (docs/completion.md#cached-verdicts).
        cache: false,
      },
    },
    conditions: ["holding-check"],
  });
}

/** From now on the repository's check holds (outside the baseline). */
export async function holdChecks(dir: string): Promise<void> {
  await mkdir(join(dir, ".closer"), { recursive: true });
  await writeFile(join(dir, ".closer/hold"), "");
}
