import { hostname } from "node:os";
import { importModule } from "../import-module.js";
import type { Environment } from "../run/index.js";
import { openQueue } from "./open-queue.js";
import type { RedisConnection } from "./redis-connection.js";
import {
  openWatchQueue,
  seenKey,
  upsertWatch,
  WATCH_QUEUE_NAME,
  type WatchTickData,
} from "./watch-schedule.js";
import { processTick, redisSeenIssues, type TickResult } from "./watch-tick.js";

/** How `closer watch` runs. */
export interface WatcherSettings {
  readonly connection: RedisConnection;
  /** The schedule this watcher upserts: its repository, label, agent and flags. */
  readonly data: WatchTickData;
  readonly everyMs: number;
  /** GITHUB_TOKEN and GITHUB_API_URL for the listing. */
  readonly env: Environment;
  /** Aborted on SIGTERM (or Ctrl-C): the watcher stops; the schedule stays. */
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
}

/**
 * Upserts the schedule, then processes ticks until `signal` is aborted: a
 * BullMQ worker on the ticks' queue, one tick at a time, so each tick runs
 * in one watcher whatever the number of watchers (docs/queue.md#watch).
 */
export async function runWatcher(settings: WatcherSettings): Promise<void> {
  const { Worker } = await importModule<typeof import("bullmq")>("bullmq");
  const ticks = await openWatchQueue(settings.connection);
  const runs = await openQueue(settings.connection);
  const name = `${hostname()}:${process.pid}`;
  const seen = redisSeenIssues(
    () => ticks.client,
    (id) => seenKey(ticks, id),
  );
  const worker = new Worker<WatchTickData, TickResult>(
    WATCH_QUEUE_NAME,
    (job) => processTick(job.data, { listLabelled, runs, seen, log: settings.log }),
    { connection: { ...settings.connection }, concurrency: 1, autorun: false },
  );
  async function listLabelled(data: WatchTickData): Promise<readonly number[]> {
    const { makeGithubClient } = await import("../github/index.js");
    const client = makeGithubClient({
      owner: data.repository.owner,
      repo: data.repository.name,
      env: settings.env,
    });
    return (await client.listIssues({ label: data.label })).map((issue) => issue.number);
  }
  worker.on("error", (error) => settings.log(`redis: ${error.message}`));
  worker.on("failed", (job, error) => {
    if (job !== undefined) settings.log(`tick ${job.id}: failed: ${error.message}`);
  });
  const stop = () => {
    void worker.close();
  };
  settings.signal.addEventListener("abort", stop, { once: true });
  try {
    const id = await upsertWatch(ticks, settings.data, settings.everyMs);
    settings.log(
      `watcher ${name}: schedule ${JSON.stringify(id)} every ${describeEvery(settings.everyMs)}, ` +
        `queueing agent ${settings.data.agent} for each new open issue labelled ${JSON.stringify(settings.data.label)}`,
    );
    if (!settings.signal.aborted) await worker.run();
  } finally {
    settings.signal.removeEventListener("abort", stop);
    await worker.close();
    await runs.close();
    await ticks.close();
  }
}

/** `90 s`, `5 min`, `2 h`. */
export function describeEvery(everyMs: number): string {
  if (everyMs % 3_600_000 === 0) return `${everyMs / 3_600_000} h`;
  if (everyMs % 60_000 === 0) return `${everyMs / 60_000} min`;
  return `${everyMs / 1000} s`;
}
