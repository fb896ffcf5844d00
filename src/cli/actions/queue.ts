import { CloserError } from "../../errors.js";
import {
  describeJobWork,
  formatJobTable,
  listJobs,
  openQueue,
  reachableRedis,
  retryJob,
} from "../../queue/index.js";
import { exitCodeAfterError } from "./error-exit.js";

/** `closer queue`'s options as commander parses them. */
export interface QueueFlags {
  readonly redis?: string;
  readonly json?: boolean;
  readonly watch?: boolean;
  readonly interval?: string;
}

/** `closer queue`: every job with its run's status and cost. */
export async function listQueue(flags: QueueFlags): Promise<number> {
  if (flags.watch === true || flags.interval !== undefined) return watchFromCommandLine(flags);
  return withQueue(flags, async (queue) => {
    const rows = await listJobs(queue);
    process.stdout.write(
      flags.json === true ? `${JSON.stringify(rows)}\n` : `${formatJobTable(rows)}\n`,
    );
  });
}

/** `closer queue --watch [--interval S]` (docs/queue.md#queue-watch). */
async function watchFromCommandLine(flags: QueueFlags): Promise<number> {
  if (flags.watch !== true || flags.json === true) {
    return exitCodeAfterError(
      new CloserError(
        "usage_error",
        flags.watch === true
          ? "--watch draws a table: it does not take --json"
          : "--interval is the period of --watch",
        {
          fix:
            flags.watch === true
              ? "drop --json (or poll `closer queue --json` yourself)"
              : "add --watch, or drop --interval",
        },
      ),
    );
  }
  const { watchQueue } = await import("./queue-watch.js");
  return watchQueue(flags);
}

/** `closer queue retry|remove <job>`. */
export async function changeJob(
  change: "retry" | "remove",
  jobId: string,
  flags: QueueFlags,
): Promise<number> {
  return withQueue(flags, async (queue) => {
    const job = await queue.getJob(jobId);
    if (job === undefined || job === null) {
      throw new CloserError("not_found", `no job ${jobId} on the queue`, {
        fix: "closer queue lists the jobs and their ids",
      });
    }
    const state = await job.getState();
    if (change === "remove") {
      if (state === "active")
        throw refused(
          jobId,
          "it is running",
          "stop its worker first (SIGTERM puts it back), then remove it",
        );
      await job.remove();
      process.stderr.write(`job ${jobId} removed (was ${state})\n`);
      return;
    }
    if (state !== "failed" && state !== "completed") {
      throw refused(
        jobId,
        `it is ${state}`,
        "only a failed or completed job is retried; a waiting one runs anyway",
      );
    }
    const retried = await retryJob(queue, job, state);
    process.stderr.write(
      retried.kind === "waiting"
        ? `job ${jobId} is waiting again (was ${state})\n`
        : `job ${jobId}'s run ${retried.endedRun.runId} ended ${retried.endedRun.status}; a new run of ${describeJobWork(job.data)} is queued as job ${retried.jobId} (run ${retried.endedRun.runId} and its record stay as they are)\n`,
    );
  });
}

function refused(jobId: string, why: string, fix: string): CloserError {
  return new CloserError("usage_error", `job ${jobId} cannot be changed: ${why}`, { fix });
}

async function withQueue(
  flags: QueueFlags,
  work: (queue: Awaited<ReturnType<typeof openQueue>>) => Promise<void>,
): Promise<number> {
  try {
    const queue = await openQueue(await reachableRedis(flags.redis, process.env));
    try {
      await work(queue);
    } finally {
      await queue.close();
    }
    return 0;
  } catch (error) {
    return exitCodeAfterError(error);
  }
}
