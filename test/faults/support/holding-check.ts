import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FaultRepo, makeFaultRepo } from "./fault-repo.js";

/**
 * A check that, while `.closer/hold` is there in the project (found through git from the clean
 * room the check runs in), writes its process mark there and waits to be stopped. Its first run
 * (the baseline's) never holds.
 */
const HOLDING_CHECK = `import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
const commonDir = execFileSync("git", ["rev-parse", "--path-format=absolute", "--git-common-dir"], { encoding: "utf8" });
const marks = join(dirname(commonDir.trim()), ".closer");
mkdirSync(marks, { recursive: true });
if (existsSync(join(marks, "ran-once")) && existsSync(join(marks, "hold"))) {
  writeFileSync(join(marks, "check-mark"), process.env.PROCESS_TREE_MARK ?? "none");
  await new Promise((resolve) => setTimeout(resolve, 600_000));
}
writeFileSync(join(marks, "ran-once"), "");
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
        // It reads ignored files (docs/completion.md#cached-verdicts).
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
