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
export {
  formatJobTable,
  formatJobTotals,
  type JobRow,
  type JobTotals,
  listJobs,
  totalsOf,
} from "./list-jobs.js";
export { openQueue, reachableRedis } from "./open-queue.js";
export { queuePageHandler } from "./queue-page.js";
export { DEFAULT_STALLED_INTERVAL_MS, runWorker, type WorkerSettings } from "./queue-worker.js";
export { REDIS_URL_VARIABLE } from "./redis-connection.js";
export { type RetryOutcome, retryJob } from "./retry-job.js";
export { type JobResult, runJob } from "./run-job.js";
export {
  listWatches,
  openWatchQueue,
  stopWatch,
  WATCH_QUEUE_NAME,
  type WatchRow,
  type WatchTickData,
  watchSchedulerId,
} from "./watch-schedule.js";
export { describeEvery, runWatcher } from "./watch-worker.js";
export { type DeliveryDecision, decideDelivery, type WatchedLabel } from "./webhook-delivery.js";
export { type PageHandler, startWebhookServer, WEBHOOK_PATH } from "./webhook-server.js";
