/** The job queue on Redis (BullMQ): closer runs on many machines (docs/queue.md). */
export { type EnqueuedJob, type EnqueueOptions, enqueueJobs } from "./enqueue-jobs.js";
export {
  deduplicationId,
  describeJobWork,
  type JobRepository,
  type JobRunFlags,
  type JobWork,
  QUEUE_NAME,
  type QueueJobData,
  type QueueJobProgress,
} from "./job-data.js";
export { formatJobTable, type JobRow, listJobs } from "./list-jobs.js";
export { openQueue, reachableRedis } from "./open-queue.js";
export { DEFAULT_STALLED_INTERVAL_MS, runWorker, type WorkerSettings } from "./queue-worker.js";
export { REDIS_URL_VARIABLE } from "./redis-connection.js";
export { retryJob } from "./retry-job.js";
export { type JobResult, runJob } from "./run-job.js";
