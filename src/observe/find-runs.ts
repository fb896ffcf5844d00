import { CloserError } from "../errors.js";
import { type FoundRun, findRuns } from "../record/find-runs.js";

/** The word that names the newest run. */
export const LAST_RUN = "last";

/**
 * The run `wanted` names: `last` (the newest), a run id, or a prefix of exactly
 * one run id (docs/observe.md#show). Anything else is a usage error that names the
 * runs folder and how to list its runs.
 */
export async function resolveRunId(runsDir: string, wanted: string): Promise<FoundRun> {
  const runs = await findRuns(runsDir);
  if (wanted === LAST_RUN) {
    const newest = runs[0];
    if (newest) return newest;
    throw new CloserError("usage_error", `no runs in ${runsDir}`, {
      fix: "start one with closer run <agent>, or name another runs folder with --runs-dir",
    });
  }
  const exact = runs.find((run) => run.runId === wanted);
  if (exact) return exact;
  const matching = wanted === "" ? [] : runs.filter((run) => run.runId.startsWith(wanted));
  const [only] = matching;
  if (only && matching.length === 1) return only;
  if (matching.length > 1) {
    throw new CloserError("usage_error", `run id "${wanted}" is ambiguous in ${runsDir}`, {
      found: matching
        .slice(0, 5)
        .map((run) => run.runId)
        .join(", "),
      fix: "give more characters of the run id; closer runs lists them",
    });
  }
  throw new CloserError("usage_error", `no run "${wanted}" in ${runsDir}`, {
    fix: `list the runs with: closer runs --runs-dir ${runsDir} (or name the newest with "last")`,
  });
}
