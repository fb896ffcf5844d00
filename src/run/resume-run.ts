import { readGitPlace } from "../workspace/index.js";
import { githubClientFor } from "./github-client-for.js";
import { resolveRunBase } from "./run-base.js";
import { runInTree } from "./run-in-tree.js";
import { withRunLock } from "./run-lock.js";
import type { GithubRunOptions, RunBaseOptions, RunOutcome } from "./run-options.js";
import { readRunToResume } from "./run-to-resume.js";

/** Resuming a run from its record. */
export interface ResumeRunOptions extends RunBaseOptions, GithubRunOptions {
  /** Id of the run (its folder name in the runs folder). */
  readonly resume: string;
  /** Take a new definition snapshot from the agent folder instead of the run's own (`--reload-definition`). */
  readonly reloadDefinition?: boolean;
  /** Rebuild run.json from events.jsonl first (`--rebuild`; docs/record.md#rebuild). */
  readonly rebuild?: boolean;
}

/**
 * Resumes a run where its record says it stopped: its task, worktree, pending
 * prompt and session, under the run's lock, with the definition it started
 * with (docs/integrity.md#resume). A run that completed, or whose process is
 * still alive, is refused; side effects already recorded are never repeated.
 * The static checks are those of the definition the run resumes with.
 */
export async function resumeRun(options: ResumeRunOptions): Promise<RunOutcome> {
  const base = await resolveRunBase(options);
  const place = await readGitPlace(base.projectDir);
  return withRunLock({ cwd: base.projectDir, place }, options.resume, async (warnings) => {
    const state = await readRunToResume(base, options.resume, {
      ...(options.rebuild === undefined ? {} : { rebuild: options.rebuild }),
    });
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
      place,
      start: { resumed: state },
      ...(issue === undefined ? {} : { issue }),
      useWorktree: state.worktree !== undefined,
      ...(options.reloadDefinition === undefined
        ? {}
        : { reloadDefinition: options.reloadDefinition }),
      warnings,
    });
  });
}
