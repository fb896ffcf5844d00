import { resolve } from "node:path";
import { resolveRunsDir } from "../../record/runs-dir.js";
import { makeRunStatusReader } from "../../run/index.js";
import {
  type CloserWorktree,
  getRepoRoot,
  listWorktrees,
  type PruneEntry,
  pruneWorktrees,
} from "../../workspace/index.js";

export interface WorktreesOptions {
  readonly cwd?: string;
  readonly runsDir?: string;
  readonly root?: string;
  readonly json?: boolean;
}

export interface PruneOptions extends WorktreesOptions {
  readonly force?: boolean;
}

/** `closer worktrees`: closer's worktrees with their state and last run. */
export async function listCloserWorktrees(options: WorktreesOptions): Promise<void> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const repoRoot = await getRepoRoot(cwd);
  const given = options.runsDir === undefined ? undefined : resolve(options.runsDir);
  const runsDir = resolveRunsDir(repoRoot, { given });
  const worktrees = await listWorktrees(repoRoot, {
    readRunStatus: makeRunStatusReader(runsDir),
    ...(options.root === undefined ? {} : { root: options.root }),
  });
  if (options.json === true) {
    process.stdout.write(`${JSON.stringify(worktrees, null, 2)}\n`);
    return;
  }
  if (worktrees.length === 0) {
    process.stdout.write("No closer worktrees.\n");
    return;
  }
  process.stdout.write(`${worktrees.map(describeWorktree).join("\n")}\n`);
}

function describeWorktree(worktree: CloserWorktree): string {
  const state = !worktree.exists
    ? "folder gone"
    : worktree.clean === true
      ? "clean"
      : "uncommitted changes";
  const facts = [
    worktree.issue === undefined ? undefined : `issue #${worktree.issue}`,
    state,
    worktree.merged ? `merged into ${worktree.mainBranch ?? "the main branch"}` : "not merged",
    worktree.lock === undefined
      ? undefined
      : worktree.lock.alive
        ? `in use by run ${worktree.lock.holder.runId} (pid ${worktree.lock.holder.pid})`
        : `stale lock of run ${worktree.lock.holder.runId}`,
    worktree.runStatus === undefined ? "no run recorded" : `last run: ${worktree.runStatus}`,
    worktree.gitLocked ? "locked (git worktree lock)" : undefined,
  ].filter((fact) => fact !== undefined);
  return `${worktree.branch ?? "(detached)"}  ${worktree.path}\n  ${facts.join(" · ")}`;
}

/** `closer worktrees prune`: removes the worktrees no run needs. */
export async function pruneCloserWorktrees(options: PruneOptions): Promise<void> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const repoRoot = await getRepoRoot(cwd);
  const result = await pruneWorktrees({
    repoRoot,
    force: options.force === true,
    ...(options.root === undefined ? {} : { root: options.root }),
  });
  if (options.json === true) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const lines = [
    ...result.removed.map((entry) => `removed ${describeEntry(entry)}`),
    ...result.kept.map((entry) => `kept    ${describeEntry(entry)}`),
  ];
  process.stdout.write(lines.length === 0 ? "No closer worktrees.\n" : `${lines.join("\n")}\n`);
}

function describeEntry(entry: PruneEntry): string {
  return `${entry.path}${entry.branch === undefined ? "" : ` (${entry.branch})`}: ${entry.reason}`;
}
