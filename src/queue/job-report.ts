import { basename, dirname } from "node:path";
import type { Queue } from "bullmq";
import { readRunView } from "../observe/read-run-view.js";
import { readReportTexts } from "../observe/report/read-report-texts.js";
import { renderReport } from "../observe/report/render-report.js";
import { hasRunState } from "../record/run-folder-reader.js";
import type { QueueJobData } from "./job-data.js";
import { rowOfJob } from "./list-jobs.js";
import { reportWhere } from "./queue-page-rows.js";

/** What the page answers for one job's report: the report, or a message saying why not. */
export type JobReportAnswer =
  | { readonly found: true; readonly page: string }
  | { readonly found: false; readonly title: string; readonly lines: readonly string[] };

/**
 * The report of job `jobId`'s run (docs/queue.md#queue-page), made from its
 * record through the same code as `closer report` when this machine holds the
 * run folder (so a running run's report is as of now); otherwise where it is.
 */
export async function jobReport(
  queue: Queue<QueueJobData>,
  jobId: string,
): Promise<JobReportAnswer> {
  const job = await queue.getJob(jobId);
  if (job === undefined || job === null) {
    return {
      found: false,
      title: `No job ${jobId}`,
      lines: [`There is no job ${jobId} on the queue: it was removed, or its id is wrong.`],
    };
  }
  const row = rowOfJob(job, await job.getState());
  if (row.reportPath === undefined) {
    return {
      found: false,
      title: `Job ${jobId} has no report yet`,
      lines: [`Job ${jobId} (${row.work}) is ${row.state}: no worker has started its run yet.`],
    };
  }
  const runDir = dirname(row.reportPath);
  if (hasRunState(runDir)) {
    const view = await readRunView(runDir);
    return { found: true, page: renderReport(view, await readReportTexts(view)) };
  }
  return {
    found: false,
    title: `The report of job ${jobId} is on another machine`,
    lines: [
      `Run ${row.runId ?? basename(runDir)} of job ${jobId} (${row.work}) is recorded ${reportWhere(row)}, which this machine cannot read.`,
      `There, \`closer report ${row.runId ?? basename(runDir)} --runs-dir ${dirname(runDir)}\` writes it.`,
    ],
  };
}
