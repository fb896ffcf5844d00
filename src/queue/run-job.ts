import { join } from "node:path";
import { applyCliOverrides } from "../definition/apply-cli-overrides.js";
import { loadAgent } from "../definition/load-agent.js";
import { isCloserError } from "../errors.js";
import type { EventListener } from "../ports/events.js";
import { readRunState } from "../record/read-run-state.js";
import { hasRunState } from "../record/run-folder-reader.js";
import { resolveRunsDir } from "../record/runs-dir.js";
import {
  type Environment,
  hasEnded,
  outcomeJson,
  type RunOutcome,
  resumeRun,
  runIssue,
  runTask,
  type Serializer,
} from "../run/index.js";
import { deliveredEarlier } from "./delivered-earlier.js";
import { lastFailedCheck } from "./failed-check.js";
import type { QueueJobData } from "./job-data.js";
import { recordedEnd } from "./recorded-end.js";
import { prepareClone } from "./repository-clone.js";

/** What a worker gives every job it runs. */
export interface JobRunContext {
  /** Where the worker keeps its clones (`--repo-dir`). */
  readonly repoDir: string;
  readonly env: Environment;
  /** Aborted when the worker is told to stop: the run ends `aborted`, as on Ctrl-C. */
  readonly signal: AbortSignal;
  /** Cloning and worktree changes, one at a time within the worker. */
  readonly serialize: Serializer;
  readonly onEvent: EventListener;
  /** A line for the worker's log (warnings). */
  readonly log: (line: string) => void;
  /** Told the run's folder once it is known, before the run starts (docs/queue.md#queue-page). */
  readonly onRunDir?: (runDir: string) => void;
}

/** The job's return value: the run's result JSON (docs/cli.md#json-output) plus how it ran. */
export type JobResult = Record<string, unknown> & {
  readonly success: boolean;
  readonly status: string;
  /** True when this attempt continued the run from its record. */
  readonly resumed: boolean;
  /** A run that did not succeed: the check that failed in its last iteration, quoted (docs/queue.md#worker). */
  readonly failedCheck?: string;
};

/**
 * Runs one job as `closer run <agent> --issue N` (or `--task-file`) would, in
 * the worker's clone of the job's repository: its own worktree, record and
 * GitHub side effects. The run id is the job's, so a later attempt resumes
 * the run from its record when this machine holds it, and otherwise starts
 * it again under the same id — whose comment markers keep every side effect
 * once (docs/queue.md#exactly-once). A run the record says ended is not
 * resumed: its recorded end is the result.
 */
export async function runJob(
  data: QueueJobData & { readonly runId: string },
  context: JobRunContext,
): Promise<JobResult> {
  const clone = await context.serialize(() => prepareClone(context.repoDir, data.repository));
  for (const warning of clone.warnings) context.log(warning);
  const { args, baseBranch, ...overrides } = data.flags;
  const agent = applyCliOverrides(await loadAgent(data.agent, { cwd: clone.path }), {
    ...overrides,
    worktree: true,
    // The verified work goes to the shared repository, not the worker's clone (docs/queue.md#delivery).
    deliver: true,
  });
  const runDir = join(resolveRunsDir(clone.path, { agent }), data.runId);
  context.onRunDir?.(runDir);
  const options = {
    agent,
    cwd: clone.path,
    env: context.env,
    signal: context.signal,
    serialize: context.serialize,
    onEvent: context.onEvent,
    repo: `${data.repository.owner}/${data.repository.name}`,
    ...(args === undefined ? {} : { args }),
  };
  if (hasRunState(runDir)) {
    const state = await readRunState(runDir);
    if (state.status === "completed") {
      return {
        success: true,
        status: state.status,
        reason: `${state.reason} (an earlier attempt of this job finished the run)`,
        iterations: state.iteration,
        runId: data.runId,
        runDir,
        costUsd: state.totals.costUsd,
        resumed: true,
      };
    }
    if (hasEnded(state.status)) return recordedEnd(state, runDir);
    return resultOf(await resumeRun({ ...options, resume: data.runId }), true);
  }
  // No record here: did an attempt elsewhere deliver the run? (docs/queue.md#exactly-once)
  const delivered = await deliveredEarlier(data, { cwd: clone.path, agent, env: context.env });
  if (delivered !== undefined) return delivered;
  const base = {
    ...options,
    runId: data.runId,
    ...(baseBranch === undefined ? {} : { baseBranch }),
  };
  if (data.work.kind === "task") {
    return resultOf(
      await runTask({ ...base, task: data.work.task, branch: `closer/queue-${data.runId}` }),
      false,
    );
  }
  try {
    return resultOf(await runIssue({ ...base, issue: data.work.issue }), false);
  } catch (error) {
    if (isCloserError(error) && error.fields.found === "closed") {
      return {
        success: false,
        status: "skipped",
        reason: `${error.message}: nothing to do (closed by hand, or by an earlier attempt of run ${data.runId} on another machine)`,
        iterations: 0,
        runId: data.runId,
        costUsd: 0,
        issue: data.work.issue,
        resumed: false,
      };
    }
    throw error;
  }
}

async function resultOf(outcome: RunOutcome, resumed: boolean): Promise<JobResult> {
  const failedCheck = outcome.success ? undefined : await lastFailedCheck(outcome.runDir);
  return {
    ...outcomeJson(outcome),
    success: outcome.success,
    status: outcome.status,
    resumed,
    ...(failedCheck === undefined ? {} : { failedCheck }),
  };
}
