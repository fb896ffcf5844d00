/**
 * The end of a run whose verified commit an earlier attempt delivered (docs/queue.md#exactly-once):
 * its marker ref is on origin, so no query is sent again; what is left of the issue's side
 * effects is done, each once, the completion comment naming the delivered commit or the pull
 * request of the run's branch.
 */
import { applyCompletionEffects, EFFECT_KEYS } from "../github/side-effects.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { GithubClient } from "../ports/github.js";
import { getCurrentBranch, makeBranchName } from "../workspace/index.js";
import { deliveredPullRequest, deliveredToBase } from "./delivered-work.js";
import { githubClientFor } from "./github-client-for.js";
import type { Environment, GithubRunOptions, SideEffectsReport } from "./run-options.js";

/** The run an earlier attempt delivered, and where it runs now. */
export interface DeliveredRun extends GithubRunOptions {
  readonly agent: ResolvedAgent;
  /** The clone the run works in. */
  readonly cwd: string;
  readonly env: Environment;
  readonly runId: string;
  /** The commit the run's marker ref names: the one delivered. */
  readonly commit: string;
  readonly issue: number;
  /** The run's base branch; default the clone's current branch, as a run's. */
  readonly baseBranch?: string;
}

/** What finishing it did: the comment's line for what was delivered, and the side effects. */
export interface DeliveredRunEnd {
  readonly delivered: string;
  readonly pullRequestUrl?: string;
  readonly sideEffects: SideEffectsReport;
}

/**
 * The issue's completion side effects for a run delivered by an earlier attempt: labels, the
 * completion comment (found by its marker when that attempt posted it) and closing (not again
 * when the issue is closed already). Nothing is recorded on this machine: what GitHub holds
 * keeps each effect once (docs/worktrees-and-github.md#side-effects).
 */
export async function finishDeliveredRun(run: DeliveredRun): Promise<DeliveredRunEnd> {
  const client = await githubClientFor(
    { agent: run.agent, projectDir: run.cwd, env: run.env },
    run,
  );
  const issue = await client.getIssue(run.issue);
  const published = await publishedLine(run, client);
  const effects = await applyCompletionEffects({
    client,
    issue: run.issue,
    runId: run.runId,
    config: run.agent.runner.github,
    summary: `An earlier attempt of run ${run.runId} verified and delivered the work, and stopped before it finished on this issue; this attempt finished it without running the agent again.`,
    iterations: 0,
    checksPassed: [],
    costUsd: 0,
    delivered: published.delivered,
    byEarlierAttempt: true,
    alreadyDone: issue.state === "closed" ? [EFFECT_KEYS.close] : [],
    record: async () => undefined,
  });
  const { failed } = effects;
  return {
    ...published,
    sideEffects: {
      performed: effects.performed,
      skipped: effects.skipped,
      ...(failed === undefined
        ? {}
        : { failed: { key: failed.key, message: failed.error.describe() } }),
    },
  };
}

/** The comment's line: the commit on the base, or the open pull request of the run's branch. */
async function publishedLine(
  run: DeliveredRun,
  client: GithubClient,
): Promise<Pick<DeliveredRunEnd, "delivered" | "pullRequestUrl">> {
  if (run.agent.runner.worktree.onSuccess === "merge") {
    const base = run.baseBranch ?? (await getCurrentBranch(run.cwd)) ?? "the base branch";
    return { delivered: deliveredToBase(run.commit, base) };
  }
  const branch = makeBranchName({
    issue: run.issue,
    branchTemplate: run.agent.runner.worktree.branchTemplate,
  });
  const url = await client.findOpenPullRequest(branch);
  return url === undefined
    ? { delivered: deliveredToBase(run.commit, branch) }
    : { delivered: deliveredPullRequest(url), pullRequestUrl: url };
}
