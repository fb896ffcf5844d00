import { join } from "node:path";
import { type RunStart, runAgent } from "../loop/index.js";
import { ensureRunsDirWritable } from "../record/runs-dir-access.js";
import type { SandboxState } from "../sandbox/run-sandbox.js";
import type { GitPlace } from "../workspace/index.js";
import { type FinishIssue, finishAfterLoop } from "./after-loop.js";
import { makeBranchWork } from "./branch-conditions.js";
import { keepDecisionFileOutOfGit } from "./exclude-decision-file.js";
import { fixDefinition } from "./fix-definition.js";
import { assertGitRepository } from "./git-requirement.js";
import { makeRunSettings } from "./make-run-settings.js";
import { prepareTree } from "./prepare-tree.js";
import { preloadBackends, type RunBase, resolveBackend } from "./run-base.js";
import type { RunOutcome } from "./run-options.js";
import { sandboxForRun, standInsLeftBy } from "./run-sandbox-place.js";

/** One task in its working tree. */
export interface TreeJob {
  /** Where the project folder is in git (readGitPlace). */
  readonly place: GitPlace;
  /** A new run's task, or the state of a run to resume. */
  readonly start: RunStart;
  readonly issue?: FinishIssue;
  readonly useWorktree: boolean;
  /** Branch of the run's worktree; default from `runner.worktree.branch`. */
  readonly branch?: string;
  /** Branch the work starts from and merges into; default the current branch. */
  readonly baseBranch?: string;
  /** A resumed run takes a new definition snapshot from the agent folder (`--reload-definition`). */
  readonly reloadDefinition?: boolean;
  /** What the branch's work is counted from instead of its base branch (a merged run's finish). */
  readonly baseRevision?: string;
  /** Found before (the run lock's). */
  readonly warnings?: readonly string[];
}

/**
 * Locks and worktree → the definition fixed (docs/integrity.md#definition-snapshot)
 * → loop → side effects → worktree end, for one task. An issue run (and any
 * run in a worktree) also needs its work committed and its tree clean before
 * it is complete (docs/completion.md#external-conditions).
 */
export async function runInTree(base: RunBase, job: TreeJob): Promise<RunOutcome> {
  const resumed = "resumed" in job.start ? job.start.resumed : undefined;
  const runId = resumed?.runId ?? base.runId;
  preloadBackends(base);
  await ensureRunsDirWritable(base.runsDir);
  const gitWarnings = assertGitRepository(base.agent, base.projectDir, {
    worktree: job.useWorktree,
    issue: job.issue !== undefined,
    inside: job.place.insideWorkTree,
  });
  const tree = await prepareTree({
    agent: base.agent,
    projectDir: base.projectDir,
    place: job.place,
    runId,
    ...(job.issue === undefined ? {} : { issue: job.issue.number }),
    useWorktree: job.useWorktree,
    ...(job.branch === undefined ? {} : { branch: job.branch }),
    ...(job.baseBranch === undefined ? {} : { baseBranch: job.baseBranch }),
    inGit: job.issue !== undefined || job.useWorktree,
    ...(resumed?.worktree === undefined ? {} : { existing: resumed.worktree }),
    serialize: base.serialize,
  });
  let sandbox: SandboxState | undefined;
  try {
    const fixed = await fixDefinition(base, {
      runDir: join(base.runsDir, runId),
      ...(resumed === undefined ? {} : { resumed }),
      ...(job.reloadDefinition === undefined ? {} : { reload: job.reloadDefinition }),
    });
    const { agent } = fixed;
    await keepDecisionFileOutOfGit(agent, tree.workTree);
    const leftStandIns = await standInsLeftBy(resumed, tree.workTree);
    sandbox = await sandboxForRun(base, agent, { runId, tree: tree.workTree });
    const branchWork =
      tree.baseRevision === undefined
        ? undefined
        : makeBranchWork({
            workTree: tree.workTree,
            baseRevision: job.baseRevision ?? tree.baseRevision,
            autoCommit: agent.runner.worktree.autoCommit,
            ...(job.issue === undefined ? {} : { issue: job.issue.number }),
          });
    const settings = await makeRunSettings(
      { ...base, agent },
      {
        workTree: tree.workTree,
        backend: await resolveBackend(base, agent),
        start: job.start,
        definition: fixed.definition,
        agentFolder: base.agent.dir,
        sandbox,
        warnings: [
          ...gitWarnings,
          ...(job.warnings ?? []),
          ...tree.warnings,
          ...fixed.warnings,
          ...leftStandIns,
          ...(sandbox.on || sandbox.warning === undefined ? [] : [sandbox.warning]),
        ],
        ...(tree.worktree === undefined ? {} : { worktree: tree.worktree }),
        ...(branchWork === undefined
          ? {}
          : { externalConditions: branchWork.conditions, beforeChecks: branchWork.beforeChecks }),
      },
    );
    return await runAgent(settings, (result, record) =>
      finishAfterLoop({
        result,
        agent,
        projectDir: base.projectDir,
        record,
        ...(job.issue === undefined ? {} : { issue: job.issue }),
        serialize: base.serialize,
        ...(base.env.GITHUB_TOKEN ? { pushToken: base.env.GITHUB_TOKEN } : {}),
      }),
    );
  } finally {
    if (sandbox?.on === true) await sandbox.sandbox.release();
    await tree.release();
  }
}
