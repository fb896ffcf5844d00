import { githubClientFor } from "./github-client-for.js";
import { runInTree } from "./run-in-tree.js";
import type { GithubRunOptions, RunBaseOptions, RunOutcome } from "./run-options.js";
import { readRunToResume, resolveCheckedRunBase } from "./run-settings.js";

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
  const base = await resolveCheckedRunBase(options);
  const state = await readRunToResume(base, options.resume);
  const issueNumber = state.task.kind === "issue" ? state.task.issueNumber : undefined;
  const issue =
    issueNumber === undefined
      ? undefined
      : {
          number: issueNumber,
          title: state.task.title,
          client: await githubClientFor(base, options),
        };
  return runInTree(base, {
    start: { resumed: state },
    ...(issue === undefined ? {} : { issue }),
    useWorktree: state.worktree !== undefined,
  });
}
