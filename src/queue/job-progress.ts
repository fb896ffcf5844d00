import { join } from "node:path";
import { REPORT_FILE_NAME } from "../observe/report/write-run-report.js";
import type { RunEvent } from "../ports/events.js";
import type { QueueJobProgress } from "./job-data.js";

/**
 * The job's progress after one run event, or undefined when the event changes
 * nothing a `closer queue` reader sees (iteration, status, cost).
 */
function nextProgress(progress: QueueJobProgress, event: RunEvent): QueueJobProgress | undefined {
  switch (event.type) {
    case "iteration-start":
      return { ...progress, iteration: event.iteration, status: "working" };
    case "backend-end":
      return { ...progress, costUsd: event.totalCostUsd };
    case "validator-start":
      return progress.status === "checking" ? undefined : { ...progress, status: "checking" };
    case "side-effect":
      return progress.status === "github" ? undefined : { ...progress, status: "github" };
    case "run-end":
      return {
        ...progress,
        status: event.status,
        iteration: event.iterations,
        costUsd: event.costUsd,
      };
    default:
      return undefined;
  }
}

/**
 * The job's progress once the run's folder is known: where its report is on
 * the worker's machine (docs/queue.md#queue-page).
 */
function withReportPath(progress: QueueJobProgress, runDir: string): QueueJobProgress {
  return { ...progress, reportPath: join(runDir, REPORT_FILE_NAME) };
}

/** What the worker tells BullMQ of one job's run as it goes (docs/queue.md#worker). */
export interface ProgressReporter {
  /** Hears each run event; a change a reader sees is sent. */
  readonly onEvent: (event: RunEvent) => void;
  /** The run's folder is known: the report's path is sent. */
  readonly onRunDir: (runDir: string) => void;
  /** The run ended without completing the job: its last status, iteration and cost, sent and awaited. */
  ended(result: Readonly<Record<string, unknown>>): Promise<void>;
}

/** Sends the job's progress, starting at `starting`, through `send` (BullMQ's `updateProgress`). */
export function reportProgress(
  start: Pick<QueueJobProgress, "runId" | "worker">,
  send: (progress: QueueJobProgress) => Promise<unknown>,
): ProgressReporter {
  let progress: QueueJobProgress = { ...start, iteration: 0, status: "starting", costUsd: 0 };
  const update = (next: QueueJobProgress) => {
    progress = next;
    void send({ ...progress }).catch(() => {});
  };
  update(progress);
  return {
    onEvent(event) {
      const next = nextProgress(progress, event);
      if (next !== undefined) update(next);
    },
    onRunDir: (runDir) => update(withReportPath(progress, runDir)),
    async ended(result) {
      progress = {
        ...progress,
        status: String(result.status),
        iteration: typeof result.iterations === "number" ? result.iterations : progress.iteration,
        costUsd: typeof result.costUsd === "number" ? result.costUsd : progress.costUsd,
      };
      await send({ ...progress });
    },
  };
}
