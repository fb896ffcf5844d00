import { resolve } from "node:path";
import { CloserError, isCloserError, wholeNumberAtLeastOne } from "../errors.js";
import { assertAgentValid } from "../lint/index.js";
import type { Backend } from "../ports/backend.js";
import type { EventListener } from "../ports/events.js";
import type { IssueSummary } from "../ports/github.js";
import { githubClientFor } from "./github-client-for.js";
import { resolveEnvironment } from "./run-base.js";
import { runIssue } from "./run-issue.js";
import type { GithubRunOptions, RunBaseOptions, RunOutcome } from "./run-options.js";
import { makeSerializer, runPool } from "./run-pool.js";

/** Default number of issues run at once. */
export const DEFAULT_CONCURRENCY = 2;

/** Many issues, each in its own worktree. */
export interface BatchRunOptions
  extends Omit<RunBaseOptions, "backend" | "branch" | "runId" | "onEvent" | "worktree">,
    GithubRunOptions {
  /** Only open issues with this label. */
  readonly label?: string;
  /** Only open issues on this Projects v2 board (of the repository's owner). */
  readonly project?: number;
  /** Issues run at once; default 2. */
  readonly concurrency?: number;
  /** The backend of each issue's run; default: one made from agent.json per issue. */
  readonly backendFor?: (issue: number) => Backend;
  /** The listener of each issue's events. */
  readonly onEventFor?: (issue: number) => EventListener | undefined;
  /** Told when the issues are known, before any run starts. */
  readonly onIssues?: (issues: readonly IssueSummary[]) => void;
  /** Told when one issue's run has ended. */
  readonly onIssueEnd?: (outcome: RunOutcome) => void;
}

/** The outcome of every issue, in the order they were listed. */
export interface BatchResult {
  /** True only when every issue completed. */
  readonly success: boolean;
  readonly outcomes: readonly RunOutcome[];
}

/**
 * Runs every matching open issue as an issue run in its own worktree, at most
 * `concurrency` at once. One issue failing — even throwing — never stops the
 * others; creating and merging worktrees happens one at a time.
 */
export async function runBatch(options: BatchRunOptions): Promise<BatchResult> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  assertBatch(options, concurrency);
  await assertAgentValid(options.agent);
  const client = await githubClientFor(
    { agent: options.agent, projectDir: resolve(options.cwd), env: resolveEnvironment(options) },
    options,
  );
  const issues =
    options.project === undefined
      ? await client.listIssues(options.label === undefined ? {} : { label: options.label })
      : await client.listProjectIssues({
          project: options.project,
          ...(options.label === undefined ? {} : { label: options.label }),
        });
  options.onIssues?.(issues);
  const serialize = options.serialize ?? makeSerializer();
  const outcomes = await runPool(issues, concurrency, async (summary) => {
    const outcome = await runOneIssue(options, summary.number, { client, serialize });
    options.onIssueEnd?.(outcome);
    return outcome;
  });
  return { success: outcomes.every((outcome) => outcome.success), outcomes };
}

async function runOneIssue(
  options: BatchRunOptions,
  issue: number,
  shared: Pick<RunBaseOptions, "serialize"> & { client: GithubRunOptions["github"] },
): Promise<RunOutcome> {
  if (options.signal?.aborted) {
    return notRun(issue, "aborted", "not started: the batch was interrupted");
  }
  try {
    const { backendFor, onEventFor, onIssues: _issues, onIssueEnd: _end, ...base } = options;
    const onEvent = onEventFor?.(issue);
    return await runIssue({
      ...base,
      issue,
      ...(shared.client === undefined ? {} : { github: shared.client }),
      ...(shared.serialize === undefined ? {} : { serialize: shared.serialize }),
      ...(backendFor === undefined ? {} : { backend: backendFor(issue) }),
      ...(onEvent === undefined ? {} : { onEvent }),
    });
  } catch (error) {
    const reason = isCloserError(error)
      ? error.describe()
      : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
    return notRun(issue, "error", reason, isCloserError(error) ? error.code : "internal_error");
  }
}

function notRun(
  issue: number,
  status: "aborted" | "error",
  reason: string,
  errorCode?: CloserError["code"],
): RunOutcome {
  return {
    success: false,
    status,
    reason,
    iterations: 0,
    runId: "",
    runDir: "",
    costUsd: 0,
    warnings: [],
    refutedDeclarations: 0,
    flaky: [],
    issue,
    ...(errorCode === undefined ? {} : { errorCode }),
  };
}

function assertBatch(options: BatchRunOptions, concurrency: number): void {
  wholeNumberAtLeastOne("--concurrency", concurrency);
  if (options.label === undefined && options.project === undefined) {
    throw new CloserError("usage_error", "a batch needs --label or --project", {
      fix: "pass --label L (and optionally --project N) to choose the issues",
    });
  }
}
