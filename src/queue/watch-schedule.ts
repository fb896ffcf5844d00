import type { Queue } from "bullmq";
import { importModule } from "../import-module.js";
import type { EnqueueOptions } from "./enqueue-jobs.js";
import type { JobRepository, JobRunFlags } from "./job-data.js";
import type { RedisConnection } from "./redis-connection.js";

/**
 * The BullMQ queue of the watch ticks, apart from the runs' queue so that a
 * `closer worker` never takes a tick for a run (docs/queue.md#watch).
 */
export const WATCH_QUEUE_NAME = "closer-watch";

/** What one tick of `closer watch` needs: which issues to look for, and the job to make of each. */
export interface WatchTickData {
  readonly version: 1;
  readonly repository: JobRepository;
  readonly label: string;
  readonly agent: string;
  readonly flags: JobRunFlags;
  readonly enqueue: EnqueueOptions;
}

/** A schedule as `closer watch --list` shows it. */
export interface WatchRow {
  readonly id: string;
  readonly everyMs: number;
  /** When the next tick is due (epoch ms), when one is. */
  readonly next?: number;
  readonly agent?: string;
}

/** Ticks kept after they ran, for a look at the last ones. */
const KEPT_TICKS = { count: 100 };

/**
 * One schedule per repository and label: every watcher of them, and a
 * restarted one, upserts the same scheduler rather than adding one.
 */
export function watchSchedulerId(
  repository: Pick<JobRepository, "owner" | "name">,
  label: string,
): string {
  return `${repository.owner}/${repository.name} label ${label}`.toLowerCase();
}

/** The Redis hash of the issues a schedule has queued and still sees labelled. */
export function seenKey(queue: Queue<WatchTickData>, schedulerId: string): string {
  return `${queue.qualifiedName}:seen:${schedulerId}`;
}

/** The ticks' queue on that Redis; the caller closes it. */
export async function openWatchQueue(connection: RedisConnection): Promise<Queue<WatchTickData>> {
  const { Queue } = await importModule<typeof import("bullmq")>("bullmq");
  return new Queue<WatchTickData>(WATCH_QUEUE_NAME, { connection: { ...connection } });
}

/** Creates the schedule, or updates it (its interval, agent and flags) when it exists. */
export async function upsertWatch(
  queue: Queue<WatchTickData>,
  data: WatchTickData,
  everyMs: number,
): Promise<string> {
  const id = watchSchedulerId(data.repository, data.label);
  await queue.upsertJobScheduler(
    id,
    { every: everyMs },
    { name: "tick", data, opts: { removeOnComplete: KEPT_TICKS, removeOnFail: KEPT_TICKS } },
  );
  return id;
}

/** Removes the schedule and what it remembered; false when there was none. */
export async function stopWatch(
  queue: Queue<WatchTickData>,
  repository: Pick<JobRepository, "owner" | "name">,
  label: string,
): Promise<boolean> {
  const id = watchSchedulerId(repository, label);
  const removed = await queue.removeJobScheduler(id);
  await (await queue.client).del(seenKey(queue, id));
  return removed;
}

/** Every schedule on the Redis. */
export async function listWatches(queue: Queue<WatchTickData>): Promise<WatchRow[]> {
  const schedulers = await queue.getJobSchedulers(0, -1, true);
  return schedulers.map((scheduler) => ({
    id: scheduler.key,
    everyMs: Number(scheduler.every ?? 0),
    ...(scheduler.next === undefined ? {} : { next: scheduler.next }),
    ...(scheduler.template?.data?.agent === undefined
      ? {}
      : { agent: scheduler.template.data.agent }),
  }));
}
