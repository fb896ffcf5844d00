import { access } from "node:fs/promises";
import { CloserError } from "../errors.js";
import type { RunState } from "../ports/run-state.js";
import {
  branchExists,
  deleteBranch,
  readGitPlace,
  removeWorktree,
  resolveRevision,
  runGit,
} from "../workspace/index.js";
import { WORKTREE_FINISHED } from "./after-loop.js";
import { githubClientFor } from "./github-client-for.js";
import { type RunBase, resolveRunBase } from "./run-base.js";
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
 * with (docs/integrity.md#resume). A run whose process is still alive is refused, and so is
 * one that completed, unless side effects were left undone: then its checks run again on its
 * verified commit and, if they hold, the rest are done. Side effects recorded are never repeated.
 * The static checks are those of the definition the run resumes with.
 */
export async function resumeRun(options: ResumeRunOptions): Promise<RunOutcome> {
  const base = await resolveRunBase(options);
  const place = await readGitPlace(base.projectDir);
  return withRunLock({ cwd: base.projectDir, place }, options.resume, async (warnings) => {
    const state = await readRunToResume(base, options.resume, {
      ...(options.rebuild === undefined ? {} : { rebuild: options.rebuild }),
      finish: true,
    });
    const finishOnly = state.status === "completed";
    const restored = finishOnly ? await placeToFinish(base, state) : undefined;
    // The branch made again after its merge counts its work from where the run started.
    const merged = restored === undefined ? undefined : state.baseline?.commit;
    const issueNumber = state.task.kind === "issue" ? state.task.issueNumber : undefined;
    const issue =
      issueNumber === undefined
        ? undefined
        : {
            number: issueNumber,
            title: state.task.title,
            client: await githubClientFor(base, options),
          };
    const outcome = await runInTree(base, {
      place,
      start: finishOnly ? { resumed: state, finishOnly } : { resumed: state },
      ...(issue === undefined ? {} : { issue }),
      useWorktree: state.worktree !== undefined,
      ...(merged === undefined ? {} : { baseRevision: merged }),
      ...(options.reloadDefinition === undefined
        ? {}
        : { reloadDefinition: options.reloadDefinition }),
      warnings,
    });
    if (restored !== undefined && outcome.worktree !== undefined) {
      // The worktree made again only for the checks goes, as the earlier merge or push left it.
      await removeWorktree(base.projectDir, outcome.worktree.path, true);
      await deleteBranch(base.projectDir, restored);
    }
    return outcome;
  });
}

/**
 * A run is finished only in a tree at the commit its checks verified (docs/integrity.md#resume):
 * a worktree an earlier attempt merged or pushed and removed gets its branch again at that
 * commit (the branch is returned, to be removed after); a tree elsewhere is refused.
 */
async function placeToFinish(base: RunBase, state: RunState): Promise<string | undefined> {
  const commit = state.completion?.commit ?? "";
  const { worktree } = state;
  const revisionOf = (cwd: string, revision: string) =>
    resolveRevision(cwd, revision).catch(() => "");
  let head: string;
  let restored: string | undefined;
  if (worktree === undefined) head = await revisionOf(base.projectDir, "HEAD");
  else if (await exists(worktree.path)) head = await revisionOf(worktree.path, "HEAD");
  else if (await branchExists(base.projectDir, worktree.branch)) {
    head = await revisionOf(base.projectDir, worktree.branch);
  } else if (state.sideEffects.includes(WORKTREE_FINISHED)) {
    await runGit(base.projectDir, ["branch", worktree.branch, commit]);
    restored = worktree.branch;
    head = commit;
  } else head = "";
  if (head === commit) return restored;
  throw new CloserError(
    "usage_error",
    `run ${state.runId} cannot be finished: its work tree is at ${head || "no commit"}, not at the commit its checks verified (${commit})`,
    {
      found: head,
      expected: commit,
      fix: "put the tree back at that commit and resume again, or start a new run",
    },
  );
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
