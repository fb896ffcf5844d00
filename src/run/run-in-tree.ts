import { homedir } from "node:os";
import { join } from "node:path";
import {
  type BackendCredentials,
  NO_CREDENTIALS,
  startBackendCredentials,
} from "../credentials/backend-credentials.js";
import { providerVariables, readProviderSettings } from "../credentials/provider-settings.js";
import { type RunStart, runAgent } from "../loop/index.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { SandboxPort } from "../ports/loop-ports.js";
import { ensureRunsDirWritable } from "../record/runs-dir-access.js";
import type { SandboxState } from "../sandbox/run-sandbox.js";
import { warmSandbox } from "../sandbox/sandbox-runtime.js";
import type { ChecksRoom } from "../workspace/checks-room.js";
import { type GitPlace, type HooksPlace, readHooksPlace } from "../workspace/index.js";
import { type AfterLoopOptions, type FinishIssue, finishAfterLoop } from "./after-loop.js";
import { makeBranchWork } from "./branch-conditions.js";
import { keepDecisionFileOutOfGit } from "./exclude-decision-file.js";
import { fixDefinition } from "./fix-definition.js";
import { makeGitHooks } from "./git-hooks.js";
import { assertGitRepository } from "./git-requirement.js";
import { makeRunSettings } from "./make-run-settings.js";
import { prepareTree } from "./prepare-tree.js";
import { preloadBackends, type RunBase, resolveBackend } from "./run-base.js";
import { checksRoomForRun } from "./run-checks-room.js";
import { backendEnvironment, runEnvironments } from "./run-environments.js";
import type { RunOutcome } from "./run-options.js";
import { backendKindsOf, sandboxForRun, standInsLeftBy } from "./run-sandbox-place.js";
import { runSetup } from "./run-setup.js";
import { reportSetupLive, withoutSetupRepeats } from "./setup-progress.js";

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
export async function runInTree(treeBase: RunBase, job: TreeJob): Promise<RunOutcome> {
  let base = treeBase;
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
  let credentials: BackendCredentials | undefined;
  let checksRoom: ChecksRoom | undefined;
  // The OS sandbox starts beside the run's own start: its setup, its credentials, its room.
  const warm = base.agent.runner.sandbox.mode === "off" ? undefined : warmSandbox();
  try {
    const fixed = await fixDefinition(base, {
      runDir: join(base.runsDir, runId),
      ...(resumed === undefined ? {} : { resumed }),
      ...(job.reloadDefinition === undefined ? {} : { reload: job.reloadDefinition }),
    });
    const { agent } = fixed;
    await keepDecisionFileOutOfGit(agent, tree.workTree);
    const leftStandIns = await standInsLeftBy(resumed, tree.workTree);
    // Where the user's hooks are, read before the model works (docs/worktrees-and-github.md#git-hooks).
    const hooksPlace = await readHooksPlace(tree.workTree, job.place.commonDir).catch(
      () => undefined,
    );
    // The project's setup, before the clean room links the tree's ignored entries
    // (docs/definition.md#setup); a resumed run's tree has it already. Its progress is
    // heard as it happens (docs/observe.md#setup-progress).
    const report = reportSetupLive(base, runId);
    const setup =
      resumed === undefined
        ? await runSetup(agent, {
            tree: tree.workTree,
            env: base.env,
            signal: base.signal,
            ...(report === undefined ? {} : { report }),
          })
        : [];
    const listener = withoutSetupRepeats(base.onEvent);
    if (listener !== undefined) base = { ...base, onEvent: listener };
    credentials = await credentialsForRun(base, agent, { runId, tree: tree.workTree });
    base = { ...base, credentials };
    checksRoom = await checksRoomForRun(base, agent, {
      tree: tree.workTree,
      ...(resumed === undefined ? {} : { resumed }),
    });
    sandbox = await sandboxForRun(base, agent, {
      runId,
      tree: tree.workTree,
      ...(checksRoom === undefined ? {} : { checksRoom: checksRoom.writable }),
    });
    await warm?.release();
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
        ...(checksRoom === undefined ? {} : { checksRoom }),
        setup,
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
        ...gitHooksOf(base, agent, {
          place: hooksPlace,
          sandbox: sandbox?.on === true ? sandbox.sandbox : undefined,
        }),
      }),
    );
  } finally {
    if (sandbox?.on === true) await sandbox.sandbox.release();
    await warm?.release();
    await credentials?.release();
    await checksRoom?.remove();
    await tree.release();
  }
}

/**
 * The model keys of the run's backends behind closer's key proxy, and their state folders the
 * run's own (docs/integrity.md#credentials); the keys their own provider settings name among
 * them (docs/backends.md#provider-settings).
 */
async function credentialsForRun(
  base: RunBase,
  agent: ResolvedAgent,
  run: { readonly runId: string; readonly tree: string },
): Promise<BackendCredentials> {
  const kinds = backendKindsOf(agent);
  const home = base.env.HOME ?? homedir();
  const providers = await readProviderSettings(kinds, { env: base.env, home, project: run.tree });
  const variables = kinds.flatMap((kind) => providerVariables(providers, kind));
  const granted = { ...NO_CREDENTIALS, providerVariables: () => variables };
  return startBackendCredentials({
    runId: run.runId,
    kinds,
    env: backendEnvironment(base.env, agent, agent.runner.backend, granted),
    home,
    providers,
  });
}

/** closer's runner of the user's hooks for the merge or push after the loop, when the run is in git. */
function gitHooksOf(
  base: RunBase,
  agent: RunBase["agent"],
  where: { readonly place: HooksPlace | undefined; readonly sandbox: SandboxPort | undefined },
): Pick<AfterLoopOptions, "gitHooks"> {
  const { place, sandbox } = where;
  if (place === undefined) return {};
  return {
    gitHooks: (record) =>
      makeGitHooks({
        mode: agent.runner.git.hooks,
        place,
        env: runEnvironments(base.env, agent).validators,
        sandbox,
        timeoutMs: agent.runner.budgets.validatorTimeoutMs,
        record: (event) => record.emit(event),
      }),
  };
}
