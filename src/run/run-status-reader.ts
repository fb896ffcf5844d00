import { isCloserError } from "../errors.js";
import type { RunState } from "../ports/run-state.js";
import { findRuns } from "../record/find-runs.js";
import { readRunState } from "../record/run-record.js";
import { canonicalPath } from "../workspace/index.js";

/**
 * For `closer worktrees`: the status of the latest run recorded for a
 * worktree path. The runs folder is read once, on first use.
 */
export function makeRunStatusReader(
  runsDir: string,
): (worktreePath: string) => Promise<string | undefined> {
  let latest: Promise<Map<string, RunState>> | undefined;
  return async (worktreePath) => {
    latest ??= readLatestRuns(runsDir);
    const state = (await latest).get(await canonicalPath(worktreePath));
    return state === undefined ? undefined : `${state.status} (run ${state.runId})`;
  };
}

async function readLatestRuns(runsDir: string): Promise<Map<string, RunState>> {
  const byPath = new Map<string, RunState>();
  for (const { runDir } of (await findRuns(runsDir)).reverse()) {
    const state = await readRunState(runDir).catch((error: unknown) => {
      if (isCloserError(error)) return undefined;
      throw error;
    });
    const path = state?.worktree?.path;
    if (state === undefined || path === undefined) continue;
    const key = await canonicalPath(path);
    const known = byPath.get(key);
    if (known === undefined || known.startedAt <= state.startedAt) byPath.set(key, state);
  }
  return byPath;
}
