import { resolve } from "node:path";
import type { TaskInfo } from "../ports/run-state.js";
import { readGitPlace } from "../workspace/index.js";
import { resolveLintedRunBase } from "./run-base.js";
import { runInTree } from "./run-in-tree.js";
import { withRunLock } from "./run-lock.js";
import type { RunBaseOptions, RunOutcome } from "./run-options.js";
import { refuseLargeTask } from "./task-size.js";

/** A run on a written task. */
export interface TaskRunOptions extends RunBaseOptions {
  readonly task: TaskInfo;
}

/**
 * Runs the agent on a written task. It works in the project folder, or in a
 * worktree when a branch is given or agent.json enables worktrees (branch
 * `closer/task-<run id>` unless named); a run in a worktree needs its work
 * committed and its tree clean, and ends like an issue run's worktree. It
 * works from a snapshot of the agent folder (docs/integrity.md#definition-snapshot).
 */
export async function runTask(options: TaskRunOptions): Promise<RunOutcome> {
  const { title, body } = options.task;
  refuseLargeTask(Buffer.byteLength(title) + Buffer.byteLength(body), {
    what: "the task",
    fix: "put the large part (logs, data) in a file of the project and name that file in the task",
  });
  // Git is asked where the folder is while the agent is checked (docs/performance.md#run-start).
  const reading = readGitPlace(resolve(options.cwd));
  reading.catch(() => undefined);
  const base = await resolveLintedRunBase(options);
  const place = await reading;
  const useWorktree =
    options.worktree !== false &&
    (options.branch !== undefined || options.agent.runner.worktree.enabled);
  return withRunLock({ cwd: base.projectDir, place }, base.runId, (warnings) =>
    runInTree(base, {
      place,
      start: { task: options.task, args: options.args ?? {} },
      useWorktree,
      ...(useWorktree ? { branch: options.branch ?? `closer/task-${base.runId}` } : {}),
      ...(options.baseBranch === undefined ? {} : { baseBranch: options.baseBranch }),
      warnings,
    }),
  );
}
