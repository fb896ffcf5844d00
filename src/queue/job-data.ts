import { createHash } from "node:crypto";
import type { TaskInfo } from "../ports/run-state.js";

/** The BullMQ queue every closer job goes through. */
export const QUEUE_NAME = "closer-runs";

/** The repository a job works on, as a worker on another machine needs it. */
export interface JobRepository {
  /** What `git clone` takes: an https or ssh URL (or a path the worker can reach). */
  readonly cloneUrl: string;
  readonly owner: string;
  readonly name: string;
}

/** The work of one job: an issue, or a written task. */
export type JobWork =
  | { readonly kind: "issue"; readonly issue: number }
  | { readonly kind: "task"; readonly task: TaskInfo };

/** closer run's options a job carries to the worker. */
export interface JobRunFlags {
  readonly maxIterations?: number;
  readonly backend?: string;
  readonly model?: string;
  readonly sandbox?: string;
  readonly baseBranch?: string;
  /** The agent's own parameters, typed as agent.json declares them. */
  readonly args?: Readonly<Record<string, unknown>>;
}

/** Everything a worker anywhere needs to run the job (docs/queue.md#job-data). */
export interface QueueJobData {
  readonly version: 1;
  readonly repository: JobRepository;
  /** A folder under `.agent/` in the repository as the worker clones it. */
  readonly agent: string;
  readonly work: JobWork;
  readonly flags: JobRunFlags;
  /** The run's id, fixed by the first worker that takes the job, so a later attempt resumes it. */
  readonly runId?: string;
  /** Host and pid of the worker that last started the job. */
  readonly startedBy?: string;
  /**
   * The run's result JSON when the job failed on it (a failed job has no return value):
   * its status, reason, iterations and cost (docs/queue.md#job-ends).
   */
  readonly result?: Readonly<Record<string, unknown>>;
}

/** What a worker writes into the job while it runs (job.updateProgress). */
export interface QueueJobProgress {
  readonly runId: string;
  readonly iteration: number;
  readonly status: string;
  readonly costUsd: number;
  readonly worker: string;
  /** The run's report.html, absolute, on the worker's machine (docs/queue.md#queue-page). */
  readonly reportPath?: string;
}

/**
 * The deduplication id: one job per repository and issue (or per repository
 * and task text) while it is queued or running.
 */
export function deduplicationId(data: QueueJobData): string {
  const repository = `${data.repository.owner}/${data.repository.name}`.toLowerCase();
  if (data.work.kind === "issue") return `${repository}#${data.work.issue}`;
  const text = `${data.work.task.title}\n${data.work.task.body}`;
  return `${repository}:task:${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
}

/** `acme/widgets#5` or `acme/widgets task "Title"`. */
export function describeJobWork(data: QueueJobData): string {
  const repository = `${data.repository.owner}/${data.repository.name}`;
  return data.work.kind === "issue"
    ? `${repository}#${data.work.issue}`
    : `${repository} task ${JSON.stringify(data.work.task.title)}`;
}
