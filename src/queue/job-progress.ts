import { join } from "node:path";
import { REPORT_FILE_NAME } from "../observe/report/write-run-report.js";
import type { RunEvent } from "../ports/events.js";
import type { QueueJobProgress } from "./job-data.js";

/**
 * The job's progress after one run event, or undefined when the event changes
 * nothing a `closer queue` reader sees (iteration, status, cost).
 */
export function nextProgress(
  progress: QueueJobProgress,
  event: RunEvent,
): QueueJobProgress | undefined {
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
export function withReportPath(progress: QueueJobProgress, runDir: string): QueueJobProgress {
  return { ...progress, reportPath: join(runDir, REPORT_FILE_NAME) };
}
