import { readRunState } from "../record/read-run-state.js";

/**
 * The check that failed in the last iteration of a run that did not succeed, as a job's result
 * names it: `lint failed (lint-error): <what it found>`. What it found is the detail the run kept,
 * its extracted findings or its output's meaningful lines, never a package manager's banner
 * (docs/completion.md#quoted-output). Nothing when no record or no failed check is there.
 */
export async function lastFailedCheck(runDir: string): Promise<string | undefined> {
  if (runDir === "") return undefined;
  const state = await readRunState(runDir).catch(() => undefined);
  const failed = state?.previousSummary?.failedCheck;
  if (failed === undefined) return undefined;
  return `${failed.validator} failed (${failed.pattern}): ${failed.detail}`;
}
