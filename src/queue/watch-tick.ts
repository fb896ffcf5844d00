import type { Queue } from "bullmq";
import { type EnqueuedJob, enqueueJobs } from "./enqueue-jobs.js";
import { describeJobWork, type QueueJobData } from "./job-data.js";
import { type WatchTickData, watchSchedulerId } from "./watch-schedule.js";

/** What a tick needs besides its data. */
export interface TickDependencies {
  /** The numbers of the repository's open issues with the label (GitHub, with the watcher's token). */
  readonly listLabelled: (data: WatchTickData) => Promise<readonly number[]>;
  readonly runs: Queue<QueueJobData>;
  /** The issues of a schedule queued so far and still labelled (a Redis hash). */
  readonly seen: SeenIssues;
  readonly log: (line: string) => void;
}

/** A set of issue numbers kept on Redis, one per schedule. */
export interface SeenIssues {
  /** Adds the issue; true when it was not there yet. */
  add(schedulerId: string, issue: number): Promise<boolean>;
  members(schedulerId: string): Promise<readonly number[]>;
  remove(schedulerId: string, issues: readonly number[]): Promise<void>;
}

/** What one tick did. */
export interface TickResult {
  readonly listed: number;
  readonly queued: readonly EnqueuedJob[];
}

/**
 * One tick: lists the open issues with the label and queues each one the
 * schedule has not queued since it last got the label (docs/queue.md#watch).
 * An issue is marked seen before it is queued, so two ticks that overlap
 * queue it once; the queue's deduplication id keeps it once besides
 * (docs/queue.md#deduplication). An issue that lost the label, or was
 * closed, is forgotten: labelled again, it is queued again.
 */
export async function processTick(
  data: WatchTickData,
  dependencies: TickDependencies,
): Promise<TickResult> {
  const id = watchSchedulerId(data.repository, data.label);
  const labelled = await dependencies.listLabelled(data);
  const fresh: number[] = [];
  for (const issue of labelled) {
    if (await dependencies.seen.add(id, issue)) fresh.push(issue);
  }
  const current = new Set(labelled);
  const gone = (await dependencies.seen.members(id)).filter((issue) => !current.has(issue));
  if (gone.length > 0) await dependencies.seen.remove(id, gone);
  const jobs = fresh.map(
    (issue): QueueJobData => ({
      version: 1,
      repository: data.repository,
      agent: data.agent,
      work: { kind: "issue", issue },
      flags: data.flags,
    }),
  );
  let queued: EnqueuedJob[];
  try {
    queued = await enqueueJobs(dependencies.runs, jobs, data.enqueue);
  } catch (error) {
    // Not queued: the next tick tries them again.
    if (fresh.length > 0) await dependencies.seen.remove(id, fresh).catch(() => {});
    throw error;
  }
  queued.forEach((job, index) => {
    const work = describeJobWork(jobs[index] as QueueJobData);
    dependencies.log(
      job.duplicate
        ? `job ${job.jobId}: ${work} is already queued or running; not queued again`
        : `job ${job.jobId}: ${work} queued (label ${JSON.stringify(data.label)})`,
    );
  });
  return { listed: labelled.length, queued };
}

/** The seen sets as Redis hashes (issue → 1), through the ticks' queue's own connection. */
export function redisSeenIssues(
  client: () => Promise<{
    hset(key: string, data: Record<string, string | number>): Promise<number>;
    hgetall(key: string): Promise<Record<string, string>>;
    hdel(key: string, ...fields: string[]): Promise<number>;
  }>,
  keyOf: (schedulerId: string) => string,
): SeenIssues {
  return {
    add: async (id, issue) => (await (await client()).hset(keyOf(id), { [issue]: 1 })) === 1,
    members: async (id) => Object.keys(await (await client()).hgetall(keyOf(id))).map(Number),
    remove: async (id, issues) => {
      await (await client()).hdel(keyOf(id), ...issues.map(String));
    },
  };
}
