import { setTimeout as sleep } from "node:timers/promises";
import { CloserError } from "../../errors.js";
import { formatJobTable, listJobs, openQueue, reachableRedis } from "../../queue/index.js";
import { makeWatchScreen } from "../queue-watch-screen.js";
import { exitCodeAfterError } from "./error-exit.js";

/** `--interval`'s default, in seconds. */
export const DEFAULT_WATCH_INTERVAL_SECONDS = 2;

/** The signals that end the watch, cleanly, with exit 0. */
const STOPPING_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** `--interval SECONDS`: a positive number (0.5 is fine). */
export function watchIntervalSeconds(value: string | undefined): number {
  if (value === undefined) return DEFAULT_WATCH_INTERVAL_SECONDS;
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  if (seconds >= 0.1 && seconds <= 3600) return seconds;
  throw new CloserError("usage_error", "--interval must be a number of seconds from 0.1 to 3600", {
    found: JSON.stringify(value),
    fix: "pass e.g. --interval 2 (or leave it out for 2 seconds)",
  });
}

/**
 * `closer queue --watch` (docs/queue.md#queue-watch): the jobs again every interval
 * until Ctrl-C (or SIGTERM, SIGHUP), which closes the Redis connection and exits 0.
 */
export async function watchQueue(flags: {
  readonly redis?: string;
  readonly interval?: string;
}): Promise<number> {
  const controller = new AbortController();
  const stop = () => {
    // A second signal while Redis does not answer: leave at once.
    if (controller.signal.aborted) process.exit(0);
    controller.abort();
  };
  for (const signal of STOPPING_SIGNALS) process.on(signal, stop);
  try {
    const seconds = watchIntervalSeconds(flags.interval);
    const queue = await openQueue(await reachableRedis(flags.redis, process.env));
    const screen = makeWatchScreen({
      write: (text) => process.stdout.write(text),
      live: Boolean(process.stdout.isTTY),
      columns: () => process.stdout.columns,
      intervalSeconds: seconds,
    });
    const stopped = new Promise<"stopped">((resolve) =>
      controller.signal.addEventListener("abort", () => resolve("stopped"), { once: true }),
    );
    try {
      while (!controller.signal.aborted) {
        const view = await Promise.race([
          listJobs(queue).then(formatJobTable, (error: Error) => readFailure(error, seconds)),
          stopped,
        ]);
        if (view === "stopped") break;
        screen.show(view, new Date());
        await sleep(seconds * 1000, undefined, { signal: controller.signal }).catch(() => {});
      }
    } finally {
      await queue.close();
    }
    return 0;
  } catch (error) {
    return exitCodeAfterError(error);
  } finally {
    for (const signal of STOPPING_SIGNALS) process.off(signal, stop);
  }
}

function readFailure(error: Error, seconds: number): string {
  return `cannot read the queue: ${error.message} (trying again every ${seconds}s; is the Redis server up?)`;
}
