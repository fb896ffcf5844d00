import type { Job, Queue } from "bullmq";
import { CloserError } from "../errors.js";
import { hasEnded } from "../run/index.js";
import { enqueueJobs } from "./enqueue-jobs.js";
import { deduplicationId, describeJobWork, type QueueJobData } from "./job-data.js";

/** What a retry did: the job waits again, or a new job runs the work anew. */
export type RetryOutcome =
  | { readonly kind: "waiting" }
  | {
      readonly kind: "new-run";
      /** The new job, whose first worker gives it a new run id. */
      readonly jobId: string;
      /** The run the retried job ended with, and how it ended; its record is left as it is. */
      readonly endedRun: { readonly runId: string; readonly status: string };
    };

/**
 * Retries a failed or completed job (docs/queue.md#queue-command). A job whose run ended — a
 * verdict or a budget spent — is not reopened: a new job of the same work is queued, with the
 * same attempts and priority, and its worker starts a new run. A job whose run was interrupted
 * (an error, a lost worker) or never started goes back to waiting and takes its deduplication id
 * back (BullMQ's retry leaves it free), so the next attempt resumes the run. Refused when another
 * job holds the id: the work is already queued or running there.
 */
export async function retryJob(
  queue: Queue<QueueJobData>,
  job: Job<QueueJobData>,
  state: "failed" | "completed",
): Promise<RetryOutcome> {
  const id = deduplicationId(job.data);
  const holder = await queue.getDeduplicationJobId(id);
  if (holder !== null && holder !== job.id) {
    throw new CloserError(
      "usage_error",
      `job ${job.id} cannot be retried: ${describeJobWork(job.data)} is queued or running as job ${holder}`,
      { fix: `let job ${holder} run, or remove it first: closer queue remove ${holder}` },
    );
  }
  const endedRun = endedRunOf(job, state);
  if (endedRun !== undefined) {
    const { runId: _runId, startedBy: _startedBy, result: _result, ...work } = job.data;
    const { priority, attempts } = job.opts;
    const [added] = await enqueueJobs(queue, [work], {
      ...(priority === undefined || priority === 0 ? {} : { priority }),
      ...(attempts === undefined ? {} : { attempts }),
    });
    return { kind: "new-run", jobId: added?.jobId ?? "", endedRun };
  }
  await job.retry(state);
  // The key BullMQ's scripts read (`<prefix>:<queue>:de:<id>`); it drops it again when the job ends.
  const client = await queue.client;
  await client.set(queue.toKey(`de:${id}`), job.id ?? "");
  return { kind: "waiting" };
}

/**
 * The run a finished job ended with, when it ended for good: a completed job's return value, a
 * failed job's recorded result (docs/queue.md#job-ends). Nothing for a run interrupted, or a job
 * that failed before its run began.
 */
function endedRunOf(
  job: Job<QueueJobData>,
  state: "failed" | "completed",
): { readonly runId: string; readonly status: string } | undefined {
  const { runId } = job.data;
  const result: unknown = state === "completed" ? job.returnvalue : job.data.result;
  if (runId === undefined || typeof result !== "object" || result === null) return undefined;
  const { status } = result as { readonly status?: unknown };
  if (typeof status !== "string" || !hasEnded(status)) return undefined;
  return { runId, status };
}
