import { join } from "node:path";
import { CloserError } from "../errors.js";
import { readRunState } from "../record/run-record.js";
import { githubClientFor } from "./github-client-for.js";
import { resolveBackend, resolveRunsDir, runInTree } from "./run-in-tree.js";
import type { GithubRunOptions, RunBaseOptions, RunOutcome } from "./run-options.js";

/** Resuming a run from its record. */
export interface ResumeRunOptions extends RunBaseOptions, GithubRunOptions {
  /** Id of the run (its folder name in the runs folder). */
  readonly resume: string;
}

/**
 * Resumes a run where its record says it stopped: its task, worktree, pending
 * prompt and session. A run that had already completed only finishes what
 * was left after the loop (side effects not yet recorded, the worktree's
 * merge); side effects already recorded are never repeated.
 */
export async function resumeRun(options: ResumeRunOptions): Promise<RunOutcome> {
  const runDir = join(resolveRunsDir(options), options.resume);
  const state = await readRunState(runDir);
  if (state.agent !== options.agent.name) {
    throw new CloserError("usage_error", `run ${state.runId} belongs to agent "${state.agent}"`, {
      file: join(runDir, "run.json"),
      jsonPath: "agent",
      expected: options.agent.name,
      found: state.agent,
      fix: `resume it with: closer run ${state.agent} --resume ${state.runId}`,
    });
  }
  const backend = resolveBackend(options);
  const issueNumber = state.task.kind === "issue" ? state.task.issueNumber : undefined;
  const issue =
    issueNumber === undefined
      ? undefined
      : { number: issueNumber, title: state.task.title, client: await githubClientFor(options) };
  return runInTree({
    ...options,
    backend,
    resumed: state,
    ...(issue === undefined ? {} : { issue }),
    useWorktree: state.worktree !== undefined,
  });
}
