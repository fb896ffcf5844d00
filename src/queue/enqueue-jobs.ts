import type { Queue } from "bullmq";
import { deduplicationId, type QueueJobData } from "./job-data.js";

/** How the queue treats the jobs of one `closer enqueue`. */
export interface EnqueueOptions {
  /** BullMQ priority: 1 is taken first; none means before every prioritised job. */
  readonly priority?: number;
  /** Attempts before the job fails for good (default 1). */
  readonly attempts?: number;
}

/** One job as enqueued, or the job already queued or running for the same work. */
export interface EnqueuedJob {
  readonly jobId: string;
  readonly deduplicationId: string;
  /** True when the work was already queued or running: no new job was made. */
  readonly duplicate: boolean;
}

/** Finished jobs kept for `closer queue` (the oldest beyond these are dropped). */
const KEPT_FINISHED = { count: 1000 };

/**
 * Adds one job per work item, deduplicated by repository + issue (or task):
 * BullMQ keeps the deduplication key while the job is waiting, delayed or
 * active and drops it when the job completes or fails, so a finished issue
 * may be queued again (docs/queue.md#deduplication).
 */
export async function enqueueJobs(
  queue: Queue<QueueJobData>,
  jobs: readonly QueueJobData[],
  options: EnqueueOptions,
): Promise<EnqueuedJob[]> {
  const added: EnqueuedJob[] = [];
  for (const data of jobs) {
    const id = deduplicationId(data);
    const before = await queue.getDeduplicationJobId(id);
    const job = await queue.add("run", data, {
      deduplication: { id },
      attempts: options.attempts ?? 1,
      ...(options.priority === undefined ? {} : { priority: options.priority }),
      removeOnComplete: KEPT_FINISHED,
      removeOnFail: KEPT_FINISHED,
    });
    const jobId = job.id ?? "";
    added.push({ jobId, deduplicationId: id, duplicate: before !== null && before === jobId });
  }
  return added;
}
