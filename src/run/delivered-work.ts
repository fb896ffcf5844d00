/**
 * What a run publishes at its end, once across its attempts (docs/queue.md#delivery): the pull
 * request of its pushed branch — the one open from the branch, else a new one — and the line the
 * completion comment gives it.
 */
import { commentMarker } from "../github/side-effects.js";
import type { GithubClient } from "../ports/github.js";
import type { WorktreeOnSuccess } from "../ports/runner-config.js";
import type { WorktreeEnd } from "./run-options.js";

/** The marker key of a run's pull request body (docs/worktrees-and-github.md#side-effects). */
const PULL_REQUEST_KEY = "pull-request";

/** The pull request of an issue run's pushed branch. */
export interface PullRequestOf {
  readonly client: GithubClient;
  readonly number: number;
  readonly title: string;
  readonly runId: string;
  /** What the model reported it did. */
  readonly summary: string;
  readonly base: string;
}

/**
 * Opens the branch's pull request once: an open one from the branch (an earlier attempt's, on
 * this machine or another) is taken as it is; else one is opened that closes the issue.
 */
export function pullRequestOnce(of: PullRequestOf): (branch: string) => Promise<string> {
  return async (branch) =>
    (await of.client.findOpenPullRequest(branch)) ??
    of.client.createPullRequest({
      head: branch,
      base: of.base,
      title: of.title,
      body: `Closes #${of.number}\n\n${of.summary}\n\n${commentMarker(of.runId, PULL_REQUEST_KEY)}`,
    });
}

/** The comment's line for a pull request. */
export function deliveredPullRequest(url: string): string {
  return `Pull request: ${url}`;
}

/** The comment's line for a commit delivered to the base (GitHub links the commit id). */
export function deliveredToBase(commit: string, base: string): string {
  return `Pushed to \`${base}\`: ${commit}`;
}

/** A delivery that did not happen, in words that follow "but". */
export function notDelivered(why: string): string {
  return `the work did not reach origin: ${why}`;
}

/**
 * What an earlier attempt of the run published, read again so the comment can name it: the
 * open pull request of the branch, or the verified commit on the base.
 */
export async function publishedEarlier(earlier: {
  readonly onSuccess: WorktreeOnSuccess;
  readonly worktree: { readonly branch: string; readonly baseBranch: string };
  readonly commit?: string;
  readonly client?: GithubClient;
}): Promise<Pick<WorktreeEnd, "pullRequestUrl" | "delivered">> {
  const { worktree, commit } = earlier;
  if (earlier.onSuccess === "merge") {
    return commit === undefined ? {} : { delivered: deliveredToBase(commit, worktree.baseBranch) };
  }
  const url = await earlier.client?.findOpenPullRequest(worktree.branch).catch(() => undefined);
  return url === undefined ? {} : { pullRequestUrl: url, delivered: deliveredPullRequest(url) };
}
