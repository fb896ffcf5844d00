/**
 * A job whose run an earlier attempt delivered (docs/queue.md#exactly-once): before a run starts
 * again without its record, origin is asked for the run's marker ref; when it is there, the
 * verified commit reached origin already, so the run is not started again — no query goes to
 * the model — and only the issue's remaining side effects are done.
 */
import type { ResolvedAgent } from "../ports/agent.js";
import { type Environment, finishDeliveredRun } from "../run/index.js";
import { readDeliveredMarker } from "../workspace/index.js";
import type { QueueJobData } from "./job-data.js";

/** Where the job runs: the worker's clone, the agent loaded from it, and the worker's environment. */
export interface DeliveredEarlierPlace {
  readonly cwd: string;
  readonly agent: ResolvedAgent;
  readonly env: Environment;
}

/** The job's result when an earlier attempt delivered the run, else undefined. */
export async function deliveredEarlier(
  data: QueueJobData & { readonly runId: string },
  place: DeliveredEarlierPlace,
): Promise<
  (Record<string, unknown> & { success: boolean; status: string; resumed: boolean }) | undefined
> {
  const commit = await readDeliveredMarker(place.cwd, data.runId);
  if (commit === undefined) return undefined;
  const said = `the work was delivered by an earlier attempt of this job: commit ${commit}`;
  const result = { iterations: 0, runId: data.runId, costUsd: 0, resumed: true, commit };
  if (data.work.kind === "task") {
    return { ...result, success: true, status: "completed", reason: said };
  }
  const { issue } = data.work;
  const end = await finishDeliveredRun({
    ...place,
    runId: data.runId,
    commit,
    issue,
    repo: `${data.repository.owner}/${data.repository.name}`,
    ...(data.flags.baseBranch === undefined ? {} : { baseBranch: data.flags.baseBranch }),
  });
  const failed = end.sideEffects.failed;
  const pullRequest =
    end.pullRequestUrl === undefined ? {} : { pullRequestUrl: end.pullRequestUrl };
  if (failed !== undefined) {
    // The run is not ended: a later attempt finds the marker again and finishes what is left.
    return {
      ...result,
      ...pullRequest,
      issue,
      success: false,
      status: "error",
      reason: `${said}, but the GitHub step "${failed.key}" failed: ${failed.message}`,
      sideEffects: end.sideEffects,
    };
  }
  return {
    ...result,
    ...pullRequest,
    issue,
    success: true,
    status: "completed",
    reason: `${said} (${end.delivered})`,
    sideEffects: end.sideEffects,
  };
}
