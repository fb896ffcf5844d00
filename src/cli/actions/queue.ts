import { CloserError } from "../../errors.js";
import {
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
}

/** `closer queue`: every job with its run's status and cost. */
export async function listQueue(flags: QueueFlags): Promise<number> {
  return withQueue(flags, async (queue) => {
    const rows = await listJobs(queue);
    process.stdout.write(
      flags.json === true ? `${JSON.stringify(rows)}\n` : `${formatJobTable(rows)}\n`,
    );
  });
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
    await retryJob(queue, job, state);
    process.stderr.write(`job ${jobId} is waiting again (was ${state})\n`);
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
