import { hostname } from "node:os";
import type { Job } from "bullmq";
import { CloserError, isCloserError } from "../errors.js";
import { importModule } from "../import-module.js";
import type { EventListener } from "../ports/events.js";
import { type Environment, makeRunId, makeSerializer, makeSystemClock } from "../run/index.js";
import {
  describeJobWork,
  QUEUE_NAME,
  type QueueJobData,
  type QueueJobProgress,
} from "./job-data.js";
import { nextProgress } from "./job-progress.js";
import type { RedisConnection } from "./redis-connection.js";
import { type JobResult, runJob } from "./run-job.js";

/** BullMQ's default, kept: a crashed worker's job comes back within about twice this. */
export const DEFAULT_STALLED_INTERVAL_MS = 30_000;

/** How `closer worker` runs. */
export interface WorkerSettings {
  readonly connection: RedisConnection;
  /** Jobs at once. */
  readonly concurrency: number;
  readonly repoDir: string;
  /** The job lock's duration and the stalled-job check's period (docs/queue.md#stalled-jobs). */
  readonly stalledIntervalMs: number;
  readonly env: Environment;
  /** Aborted on SIGTERM (or Ctrl-C): running runs stop, their jobs go back to the queue. */
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
  /** The progress listener of one job's run (the worker's log lines). */
  readonly onEventFor?: (jobId: string) => EventListener | undefined;
}

/** Codes of errors no retry can cure: the job fails at once. */
const UNRECOVERABLE = new Set([
  "usage_error",
  "config_error",
  "validation_error",
  "not_found",
  "parse_error",
]);

/**
 * Takes jobs until `signal` is aborted, each run as a normal closer run
 * (runJob). On abort the worker stops taking jobs; each running run ends
 * `aborted` and its job goes back to waiting for another worker; then the
 * worker closes.
 */
export async function runWorker(settings: WorkerSettings): Promise<void> {
  const { Worker } = await importModule<typeof import("bullmq")>("bullmq");
  const serialize = makeSerializer();
  const name = `${hostname()}:${process.pid}`;
  const worker = new Worker<QueueJobData, JobResult>(
    QUEUE_NAME,
    (job, token) => processJob(job, token ?? "", { settings, serialize, name }),
    {
      connection: { ...settings.connection },
      concurrency: settings.concurrency,
      autorun: false,
      lockDuration: settings.stalledIntervalMs,
      stalledInterval: settings.stalledIntervalMs,
      maxStalledCount: 2,
    },
  );
  worker.on("error", (error) => settings.log(`redis: ${error.message}`));
  worker.on("failed", (job, error) => {
    if (job !== undefined) settings.log(`job ${job.id}: failed: ${error.message}`);
  });
  const stop = () => {
    void worker.close();
  };
  settings.signal.addEventListener("abort", stop, { once: true });
  settings.log(
    `worker ${name}: waiting for jobs (concurrency ${settings.concurrency}, clones in ${settings.repoDir})`,
  );
  try {
    if (!settings.signal.aborted) await worker.run();
  } finally {
    settings.signal.removeEventListener("abort", stop);
    await worker.close();
  }
}

interface ProcessContext {
  readonly settings: WorkerSettings;
  readonly serialize: ReturnType<typeof makeSerializer>;
  readonly name: string;
}

async function processJob(
  job: Job<QueueJobData, JobResult>,
  token: string,
  context: ProcessContext,
): Promise<JobResult> {
  const { settings, name } = context;
  const { WaitingError, UnrecoverableError } =
    await importModule<typeof import("bullmq")>("bullmq");
  const runId = job.data.runId ?? makeRunId(makeSystemClock());
  await job.updateData({ ...job.data, runId, startedBy: name });
  settings.log(`job ${job.id}: ${describeJobWork(job.data)}: run ${runId} starts`);
  let progress: QueueJobProgress = {
    runId,
    iteration: 0,
    status: "starting",
    costUsd: 0,
    worker: name,
  };
  void job.updateProgress({ ...progress }).catch(() => {});
  const shown = settings.onEventFor?.(job.id ?? "");
  const onEvent: EventListener = (event) => {
    shown?.(event);
    const next = nextProgress(progress, event);
    if (next === undefined) return;
    progress = next;
    void job.updateProgress({ ...progress }).catch(() => {});
  };
  const release = async (why: string) => {
    await job.moveToWait(token);
    settings.log(`job ${job.id}: released (${why}); another worker takes it up from run ${runId}`);
    return new WaitingError();
  };
  let result: JobResult;
  try {
    result = await runJob(
      { ...job.data, runId },
      { ...settings, serialize: context.serialize, onEvent },
    );
  } catch (error) {
    if (settings.signal.aborted) throw await release("the worker is stopping");
    const message = isCloserError(error) ? error.describe() : (error as Error).message;
    throw isCloserError(error) && UNRECOVERABLE.has(error.code)
      ? new UnrecoverableError(message)
      : new Error(message);
  }
  if (settings.signal.aborted && result.status === "aborted") {
    throw await release(`run ${runId} stopped: ${String(settings.signal.reason ?? "signal")}`);
  }
  settings.log(
    `job ${job.id}: run ${runId} ended ${result.status}: ${String(result.reason ?? "")}`,
  );
  if (result.status === "error") {
    throw new CloserError(
      "internal_error",
      `run ${runId} ended with an error: ${String(result.reason)}`,
    );
  }
  return result;
}
