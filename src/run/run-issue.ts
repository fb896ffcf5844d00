import { resolve } from "node:path";
import { CloserError, wholeNumberAtLeastOne } from "../errors.js";
import { readGitPlace } from "../workspace/index.js";
import { githubClientFor } from "./github-client-for.js";
import { makeIssueTask } from "./issue-task.js";
import { resolveLintedRunBase } from "./run-base.js";
import { runInTree } from "./run-in-tree.js";
import { withRunLock } from "./run-lock.js";
import type { GithubRunOptions, RunBaseOptions, RunOutcome } from "./run-options.js";

/** A run on one GitHub issue. */
export interface IssueRunOptions extends RunBaseOptions, GithubRunOptions {
  readonly issue: number;
}

/**
 * Runs the agent on a GitHub issue (docs/worktrees-and-github.md): the
 * issue's title, body, labels and comments become template variables; the
 * run works in the issue's own worktree (unless `worktree: false`), under a
 * lock per issue; completion also needs the work committed on the branch and
 * the tree clean; after verified completion closer applies the issue's side
 * effects once and merges, pushes or keeps the worktree. A GitHub failure
 * before the run (401, 404, rate limit) is thrown as a CloserError `github_error`.
 */
export async function runIssue(options: IssueRunOptions): Promise<RunOutcome> {
  wholeNumberAtLeastOne("--issue", options.issue);
  const reading = readGitPlace(resolve(options.cwd));
  reading.catch(() => undefined);
  const base = await resolveLintedRunBase(options);
  const client = await githubClientFor(base, options);
  const issue = await client.getIssue(options.issue);
  if (issue.state === "closed") {
    throw new CloserError("usage_error", `issue #${issue.number} is closed`, {
      found: "closed",
      expected: "an open issue",
      fix: `reopen ${issue.url} to run on it again`,
    });
  }
  const { task, args } = makeIssueTask(issue, options.args);
  const place = await reading;
  return withRunLock({ cwd: base.projectDir, place }, base.runId, (warnings) =>
    runInTree(base, {
      place,
      start: { task, args },
      issue: { number: issue.number, title: issue.title, client },
      useWorktree: options.worktree !== false,
      ...(options.branch === undefined ? {} : { branch: options.branch }),
      ...(options.baseBranch === undefined ? {} : { baseBranch: options.baseBranch }),
      warnings,
    }),
  );
}
