import { join, resolve } from "node:path";
import { makeBackend } from "../backends/make-backend.js";
import { resolveDecisionPath } from "../completion/decide-completion.js";
import { type AgentResult, makeRunId, makeSystemClock, runAgent } from "../loop/index.js";
import type { Backend, Clock } from "../ports.js";
import { defaultRunsDir, readRunState } from "../record/run-record.js";
import type { RunState, TaskInfo } from "../record/run-state.js";
import { type BranchWork, makeBranchWork } from "./branch-conditions.js";
import { type FinishIssue, finishRun } from "./finish-run.js";
import { observeBackend } from "./observe-backend.js";
import { trackPassedChecks } from "./passed-checks.js";
import { makePostRunRecord } from "./post-run-record.js";
import { prepareTree } from "./prepare-tree.js";
import type { RunBaseOptions, RunOutcome } from "./run-options.js";
import { makeSerializer } from "./run-pool.js";

/** A run of one task in its working tree, from the lock to the side effects. */
export interface RunInTreeOptions extends RunBaseOptions {
  readonly backend: Backend;
  /** The task of a new run. */
  readonly task?: TaskInfo;
  /** The state of a run to resume. */
  readonly resumed?: RunState;
  readonly issue?: FinishIssue;
  readonly useWorktree: boolean;
}

/** The runs folder: the option, agent.json's, or the default, relative to the project folder. */
export function resolveRunsDir(options: Pick<RunBaseOptions, "agent" | "cwd" | "runsDir">): string {
  return resolve(
    options.cwd,
    options.runsDir ?? options.agent.runner.logging.runsDir ?? defaultRunsDir(options.cwd),
  );
}

/** The backend a run uses: the given one, else the one agent.json configures. */
export function resolveBackend(options: RunBaseOptions): Backend {
  return (
    options.backend ??
    makeBackend(options.agent.runner.backend, {
      agentDir: options.agent.dir,
      env: options.env ?? process.env,
      ...(options.scripted === undefined ? {} : { scripted: options.scripted }),
    })
  );
}

/**
 * Lock → worktree → loop → side effects → worktree end, for one task. An
 * issue run (and any run in a worktree) also needs its work committed and
 * its tree clean before it is complete (SPEC §4.6). A resumed run that had
 * already completed only finishes what is left after the loop.
 */
export async function runInTree(options: RunInTreeOptions): Promise<RunOutcome> {
  const clock = options.clock ?? makeSystemClock();
  const env = options.env ?? process.env;
  const serialize = options.serialize ?? makeSerializer();
  const runsDir = resolveRunsDir(options);
  const { resumed } = options;
  const runId = resumed?.runId ?? options.runId ?? makeRunId(clock);
  const finishOnly = resumed?.status === "completed";
  const tree = await prepareTree({
    agent: options.agent,
    cwd: options.cwd,
    runId,
    ...(options.issue === undefined ? {} : { issue: options.issue.number }),
    useWorktree: options.useWorktree && !finishOnly,
    ...(options.branch === undefined ? {} : { branch: options.branch }),
    ...(options.baseBranch === undefined ? {} : { baseBranch: options.baseBranch }),
    inGit: options.issue !== undefined || options.useWorktree,
    ...(resumed?.worktree === undefined ? {} : { existing: resumed.worktree }),
    serialize,
  });
  try {
    const checks = trackPassedChecks(options.onEvent);
    let summary: () => string | undefined = () => undefined;
    let result: AgentResult;
    if (finishOnly) {
      result = resultOfState(resumed, join(runsDir, runId));
    } else {
      const started = startLoop(options, { clock, env, runsDir, runId, tree, checks });
      summary = started.summary;
      result = await started.result;
    }
    const state = await readRunState(result.runDir);
    return await finishRun({
      result: { ...result, warnings: [...tree.warnings, ...result.warnings] },
      agent: options.agent,
      cwd: options.cwd,
      record: makePostRunRecord({
        runDir: result.runDir,
        runId,
        clock,
        env,
        ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
      }),
      alreadyDone: state.sideEffects ?? [],
      ...(options.issue === undefined ? {} : { issue: options.issue }),
      completion: {
        summary: summary() ?? state.completion?.summary ?? "",
        checksPassed: finishOnly ? (state.completion?.checksPassed ?? []) : checks.passed(),
      },
      serialize,
    });
  } finally {
    await tree.release();
  }
}

interface LoopContext {
  readonly clock: Clock;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly runsDir: string;
  readonly runId: string;
  readonly tree: Awaited<ReturnType<typeof prepareTree>>;
  readonly checks: ReturnType<typeof trackPassedChecks>;
}

function startLoop(
  options: RunInTreeOptions,
  context: LoopContext,
): { result: Promise<AgentResult>; summary: () => string | undefined } {
  const { agent } = options;
  const { tree } = context;
  const decisionPath = resolveDecisionPath(tree.cwd, agent.runner.decisionFile, {
    file: agent.files.agentJson,
    jsonPath: "runner.decisionFile",
  });
  const onBranch = tree.baseRevision !== undefined;
  let branchWork: BranchWork | undefined;
  const backend = observeBackend(options.backend, {
    completionSignal: agent.registry.completionSignal,
    decisionPath,
    ...(onBranch && agent.runner.worktree.autoCommit
      ? { onDeclaredComplete: () => branchWork?.commitLeftovers() ?? Promise.resolve(false) }
      : {}),
  });
  if (tree.baseRevision !== undefined) {
    branchWork = makeBranchWork({
      cwd: tree.cwd,
      baseRevision: tree.baseRevision,
      autoCommit: agent.runner.worktree.autoCommit,
      summary: backend.lastSummary,
      ...(options.issue === undefined ? {} : { issue: options.issue.number }),
    });
  }
  const resumed = options.resumed;
  const result = runAgent({
    agent,
    backend,
    cwd: tree.cwd,
    ...(resumed === undefined
      ? {
          ...(options.task === undefined ? {} : { task: options.task }),
          ...(options.args === undefined ? {} : { args: options.args }),
          runId: context.runId,
        }
      : { resume: resumed.runId }),
    runsDir: context.runsDir,
    clock: context.clock,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onEvent: context.checks.listener,
    ...(branchWork === undefined ? {} : { externalConditions: branchWork.conditions }),
    env: context.env,
    ...(tree.worktree === undefined ? {} : { worktree: tree.worktree }),
  });
  return { result, summary: backend.lastSummary };
}

function resultOfState(state: RunState, runDir: string): AgentResult {
  return {
    success: true,
    status: "completed",
    reason: state.reason,
    iterations: state.iteration,
    runId: state.runId,
    runDir,
    costUsd: state.totals.costUsd,
    ...(state.worktree === undefined ? {} : { worktree: state.worktree }),
    warnings: state.warnings,
  };
}
