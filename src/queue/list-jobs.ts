import { join } from "node:path";
import type { Job, Queue } from "bullmq";
import { REPORT_FILE_NAME } from "../observe/report/write-run-report.js";
import type { QueueJobData, QueueJobProgress } from "./job-data.js";
import { describeJobWork } from "./job-data.js";

/** The states `closer queue` lists, in its order. */
export const LISTED_STATES = [
  "active",
  "waiting",
  "prioritized",
  "delayed",
  "completed",
  "failed",
] as const;

/** One job as `closer queue` shows it. */
export interface JobRow {
  readonly id: string;
  readonly state: string;
  readonly work: string;
  readonly agent: string;
  readonly runId?: string;
  /** The run's status: from its progress while it runs, from its result once done. */
  readonly runStatus?: string;
  readonly iteration?: number;
  readonly costUsd?: number;
  readonly attemptsMade: number;
  readonly worker?: string;
  readonly failedReason?: string;
  /** The run's report.html on the worker's machine (docs/queue.md#queue-page). */
  readonly reportPath?: string;
}

/** Every listed job, newest first within each state. */
export async function listJobs(queue: Queue<QueueJobData>): Promise<JobRow[]> {
  const rows: JobRow[] = [];
  for (const state of LISTED_STATES) {
    for (const job of await queue.getJobs([state], 0, -1, false)) {
      if (job !== undefined && job !== null) rows.push(rowOfJob(job, state));
    }
  }
  return rows;
}

/** One job as `closer queue` shows it, in `state` (`job.getState()`). */
export function rowOfJob(job: Job<QueueJobData>, state: string): JobRow {
  const progress = isProgress(job.progress) ? job.progress : undefined;
  // A failed job has no return value: its run's result, when it has one, is in its data.
  const result = (job.returnvalue ?? job.data.result ?? undefined) as
    | Readonly<Record<string, unknown>>
    | undefined;
  const runStatus = typeof result?.status === "string" ? result.status : progress?.status;
  const costUsd = typeof result?.costUsd === "number" ? result.costUsd : progress?.costUsd;
  const reportPath =
    progress?.reportPath ??
    (typeof result?.runDir === "string" ? join(result.runDir, REPORT_FILE_NAME) : undefined);
  return {
    id: job.id ?? "",
    state: state === "prioritized" ? "waiting" : state,
    work: describeJobWork(job.data),
    agent: job.data.agent,
    ...(job.data.runId === undefined ? {} : { runId: job.data.runId }),
    ...(runStatus === undefined ? {} : { runStatus }),
    ...(progress === undefined ? {} : { iteration: progress.iteration }),
    ...(costUsd === undefined ? {} : { costUsd }),
    attemptsMade: job.attemptsMade,
    ...(job.data.startedBy === undefined ? {} : { worker: job.data.startedBy }),
    ...(job.failedReason ? { failedReason: job.failedReason } : {}),
    ...(reportPath === undefined ? {} : { reportPath }),
  };
}

function isProgress(value: unknown): value is QueueJobProgress {
  return typeof value === "object" && value !== null && "runId" in value && "status" in value;
}

/** How many jobs are in each kind of state, and what their runs cost together. */
export interface JobTotals {
  readonly running: number;
  /** Waiting, prioritised or delayed. */
  readonly waiting: number;
  readonly done: number;
  readonly failed: number;
  readonly costUsd: number;
}

export function totalsOf(rows: readonly JobRow[]): JobTotals {
  const count = (states: readonly string[]) =>
    rows.filter((row) => states.includes(row.state)).length;
  return {
    running: count(["active"]),
    waiting: count(["waiting", "delayed"]),
    done: count(["completed"]),
    failed: count(["failed"]),
    costUsd: rows.reduce((sum, row) => sum + (row.costUsd ?? 0), 0),
  };
}

/** `1 running, 2 waiting, 3 done, 0 failed, total cost $0.42`. */
export function formatJobTotals(totals: JobTotals): string {
  return (
    `${totals.running} running, ${totals.waiting} waiting, ${totals.done} done, ` +
    `${totals.failed} failed, total cost $${totals.costUsd.toFixed(2)}`
  );
}

/** The rows as a table for the terminal, then the failures' reasons and the totals. */
export function formatJobTable(rows: readonly JobRow[]): string {
  if (rows.length === 0) return "no jobs";
  const header = ["job", "state", "work", "agent", "run", "status", "iter", "cost", "worker"];
  const lines = rows.map((row) => [
    row.id,
    row.state,
    row.work,
    row.agent,
    row.runId ?? "-",
    row.runStatus ?? "-",
    row.iteration === undefined ? "-" : String(row.iteration),
    row.costUsd === undefined ? "-" : `$${row.costUsd.toFixed(2)}`,
    row.worker ?? "-",
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? "").length)),
  );
  const render = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  const failures = rows
    .filter((row) => row.failedReason !== undefined)
    .map((row) => `job ${row.id} failed: ${row.failedReason}`);
  return [render(header), ...lines.map(render), ...failures, formatJobTotals(totalsOf(rows))].join(
    "\n",
  );
}
