import { BUILTIN_PATTERN_NAMES, type CheckFailure } from "../ports/check-failure.js";
import { emit, type RunContext, warn } from "./run-context.js";

/**
 * `git-config-changed` (docs/integrity.md#git-state): after every query and
 * after the checks of a declaration (they ran the model's code), the
 * repository's git state is compared with the one the run started with, and
 * whatever changed is put back before closer's own git runs again. A change
 * is recorded as a `guard` event and fails the iteration; the retry prompt
 * names it.
 */
export async function guardGitState(
  run: RunContext,
  iteration: number,
  during: "the query" | "the checks" = "the query",
): Promise<CheckFailure | undefined> {
  const gitPaths = await restoreGitState(run, iteration);
  if (gitPaths.length === 0) return undefined;
  const detail = `git configuration changed during ${during}, restored: ${gitPaths.join(", ")}`;
  emit(run, {
    type: "guard",
    iteration,
    guard: BUILTIN_PATTERN_NAMES.gitConfigChanged,
    valid: false,
    detail,
    params: { gitPaths },
  });
  return {
    kind: "guard",
    name: BUILTIN_PATTERN_NAMES.gitConfigChanged,
    pattern: BUILTIN_PATTERN_NAMES.gitConfigChanged,
    params: { gitPaths },
    detail,
  };
}

/**
 * The git state put back once more when the loop ends, before closer's own
 * git finishes the run (commit, merge, push): a change found here was made
 * after the last guard (a query cut off by a timeout or an abort, the
 * closure review's query, a process the model left behind).
 */
export async function restoreGitStateBeforeFinish(run: RunContext, iteration: number) {
  const gitPaths = await restoreGitState(run, iteration);
  if (gitPaths.length === 0) return;
  warn(
    run,
    iteration,
    `git configuration changed after the last check, restored: ${gitPaths.join(", ")}`,
  );
}

async function restoreGitState(run: RunContext, iteration: number): Promise<string[]> {
  try {
    return await run.ports.integrity.restoreGitState();
  } catch (error) {
    warn(run, iteration, `the git configuration could not be restored: ${String(error)}`);
    return [];
  }
}
