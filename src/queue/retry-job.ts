import type { Job, Queue } from "bullmq";
import { CloserError } from "../errors.js";
import { deduplicationId, describeJobWork, type QueueJobData } from "./job-data.js";

/**
 * Puts a failed or completed job back to waiting, and takes its
 * deduplication id back for it (BullMQ's retry leaves the id free), so the
 * issue is still queued once. Refused when another job holds the id: the
 * work is already queued or running there.
 */
export async function retryJob(
  queue: Queue<QueueJobData>,
  job: Job<QueueJobData>,
  state: "failed" | "completed",
): Promise<void> {
  const id = deduplicationId(job.data);
  const holder = await queue.getDeduplicationJobId(id);
  if (holder !== null && holder !== job.id) {
    throw new CloserError(
      "usage_error",
      `job ${job.id} cannot be retried: ${describeJobWork(job.data)} is queued or running as job ${holder}`,
      { fix: `let job ${holder} run, or remove it first: closer queue remove ${holder}` },
    );
  }
  await job.retry(state);
  // The key BullMQ's scripts read (`<prefix>:<queue>:de:<id>`); it drops it again when the job ends.
  const client = await queue.client;
  await client.set(queue.toKey(`de:${id}`), job.id ?? "");
}
