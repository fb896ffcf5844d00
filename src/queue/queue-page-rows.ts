import { dirname } from "node:path";
import { hasRunState } from "../record/run-folder-reader.js";
import type { JobRow } from "./list-jobs.js";

/** A job as the queue page shows it: its row, and where its run's report is (docs/queue.md#queue-page). */
export type QueuePageRow = JobRow & {
  /** The page's link to the report, when this machine can read the run. */
  readonly reportUrl?: string;
  /** Where the report is when this machine cannot read it: `on <host> at <path>`. */
  readonly reportElsewhere?: string;
};

/** The page's route of one job's report. */
export function reportUrlOf(jobId: string): string {
  return `/runs/${encodeURIComponent(jobId)}/report`;
}

/** True when this machine holds the run's record, from which the page makes the report. */
export function isReportHere(reportPath: string): boolean {
  return hasRunState(dirname(reportPath));
}

/** `on build-2 at /home/ci/…/report.html`: the worker's host (not its pid) and the path. */
export function reportWhere(row: Pick<JobRow, "worker" | "reportPath">): string {
  const host = row.worker?.replace(/:\d+$/, "");
  return `${host === undefined ? "" : `on ${host} `}at ${row.reportPath ?? "(unknown)"}`;
}

export function pageRowsOf(rows: readonly JobRow[]): QueuePageRow[] {
  return rows.map((row) => {
    if (row.reportPath === undefined) return row;
    return isReportHere(row.reportPath)
      ? { ...row, reportUrl: reportUrlOf(row.id) }
      : { ...row, reportElsewhere: reportWhere(row) };
  });
}
