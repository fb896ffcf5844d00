import { hostname } from "node:os";
import type { Job } from "bullmq";
import { isCloserError } from "../errors.js";
import { importModule } from "../import-module.js";
import type { EventListener } from "../ports/events.js";
import { type Environment, makeRunId, makeSerializer, makeSystemClock } from "../run/index.js";
import { describeJobWork, QUEUE_NAME, type QueueJobData } from "./job-data.js";
import { jobEndOf } from "./job-end.js";
import { reportProgress } from "./job-progress.js";
import { type RedisConnection, unreachableReason } from "./redis-connection.js";
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
    // The third parameter makes BullMQ give each job a signal of its own: aborted when its lock is lost.
    (job, token, lost) => processJob(job, token ?? "", lost, { settings, serialize, name }),
    {
      connection: { ...settings.connection },
      concurrency: settings.concurrency,
      autorun: false,
      lockDuration: settings.stalledIntervalMs,
      stalledInterval: settings.stalledIntervalMs,
      maxStalledCount: 2,
    },
  );
  // One line when Redis goes, one when it is back: ioredis keeps reconnecting (docs/queue.md#redis-restart).
  const where = `${settings.connection.host}:${settings.connection.port}`;
  let unreachable = false;
  worker.on("error", (error) => {
    const reason = unreachableReason(error);
    if (reason === undefined) {
      // A lost lock has its own line (below).
      if (!error.message.startsWith("could not renew lock"))
        settings.log(`redis: ${error.message}`);
      return;
    }
    if (unreachable) return;
    unreachable = true;
    settings.log(
      `Redis at ${where} is unreachable (${reason}); reconnecting until it answers: running runs go on, no new job is taken meanwhile`,
    );
  });
  worker.on("ready", () => {
    if (!unreachable) return;
    unreachable = false;
    settings.log(`Redis at ${where} answers again; taking jobs`);
  });
  // A job whose lock expired (Redis away longer than the lock lasts) is no longer this worker's.
  worker.on("lockRenewalFailed", (jobIds) => {
    for (const jobId of jobIds) worker.cancelJob(jobId, LOCK_LOST);
  });
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

/** The reason a job's own signal is aborted with when its lock is lost. */
const LOCK_LOST = "the job's lock was lost";

async function processJob(
  job: Job<QueueJobData, JobResult>,
  token: string,
  lost: AbortSignal | undefined,
  context: ProcessContext,
): Promise<JobResult> {
  const { settings, name } = context;
  const { WaitingError, UnrecoverableError } =
    await importModule<typeof import("bullmq")>("bullmq");
  const runId = job.data.runId ?? makeRunId(makeSystemClock());
  await job.updateData({ ...job.data, runId, startedBy: name });
  settings.log(`job ${job.id}: ${describeJobWork(job.data)}: run ${runId} starts`);
  const progress = reportProgress({ runId, worker: name }, (sent) => job.updateProgress(sent));
  const shown = settings.onEventFor?.(job.id ?? "");
  const onEvent: EventListener = (event) => {
    shown?.(event);
    progress.onEvent(event);
  };
  const release = async (why: string) => {
    await job.moveToWait(token);
    settings.log(`job ${job.id}: released (${why}); another worker takes it up from run ${runId}`);
    return new WaitingError();
  };
  // The job is another attempt's now: stop, and leave it to the stalled-job check (docs/queue.md#redis-restart).
  const letGo = (ended: string) => {
    settings.log(
      `job ${job.id}: its lock expired while Redis was unreachable, so the job is no longer this worker's: run ${runId} ${ended}; the stalled-job check hands the job to the next attempt, which takes the run up where it is`,
    );
    return new WaitingError();
  };
  // Asked once the run ended: a lock that expired with no renewal failing yet is lost all the same.
  const stillHeld = async () =>
    lost?.aborted !== true &&
    (await job.extendLock(token, settings.stalledIntervalMs).catch(() => 0)) === 1;
  const signal = lost === undefined ? settings.signal : AbortSignal.any([settings.signal, lost]);
  let result: JobResult;
  try {
    result = await runJob(
      { ...job.data, runId },
      { ...settings, signal, serialize: context.serialize, onEvent, onRunDir: progress.onRunDir },
    );
  } catch (error) {
    if (!(await stillHeld())) throw letGo(`stopped: ${(error as Error).message}`);
    if (settings.signal.aborted) throw await release("the worker is stopping");
    const message = isCloserError(error) ? error.describe() : (error as Error).message;
    throw isCloserError(error) && UNRECOVERABLE.has(error.code)
      ? new UnrecoverableError(message)
      : new Error(message);
  }
  if (!(await stillHeld())) throw letGo(`ended ${result.status}, its record kept`);
  if (settings.signal.aborted && result.status === "aborted") {
    throw await release(`run ${runId} stopped: ${String(settings.signal.reason ?? "signal")}`);
  }
  settings.log(
    `job ${job.id}: run ${runId} ended ${result.status}: ${String(result.reason ?? "")}`,
  );
  const end = jobEndOf(result, name);
  if (end.kind === "complete") return result;
  // A failed job has no return value: its data keeps the run's result, its progress the numbers.
  await job.updateData({ ...job.data, runId, startedBy: name, result });
  await progress.ended(result);
  // An end the run reached itself is no attempt's to cure: no retry spends one on it.
  throw end.kind === "fail" ? new UnrecoverableError(end.reason) : new Error(end.reason);
}
