import { resolve } from "node:path";
import { Command } from "commander";
import { defaultRunsDir } from "../record/run-record.js";
import { makeRunStatusReader } from "../run/index.js";
import {
  type CloserWorktree,
  getRepoRoot,
  listWorktrees,
  type PruneEntry,
  pruneWorktrees,
} from "../workspace/index.js";

interface WorktreesOptions {
  readonly cwd?: string;
  readonly runsDir?: string;
  readonly root?: string;
  readonly json?: boolean;
}

interface PruneOptions extends WorktreesOptions {
  readonly force?: boolean;
}

const CWD_HELP = "a folder inside the repository (default: the current directory)";
const ROOT_HELP =
  "folder of closer's worktrees, relative to the repository (default .closer/worktrees)";

const EXAMPLES = `
Examples:
  $ closer worktrees                 closer's worktrees with their branch, state and last run
  $ closer worktrees --json          the same as JSON
  $ closer worktrees prune           remove worktrees no run needs (merged, gone, or unlocked and clean)
  $ closer worktrees prune --force   also remove worktrees with uncommitted changes

A worktree a live run holds is never removed. A removed worktree's branch is deleted only
when it is merged, so committed work always stays on its branch.`;

export function makeWorktreesCommand(): Command {
  const command = new Command("worktrees")
    .description("List closer's worktrees with the status of their last run, or prune the orphans.")
    .option("--cwd <dir>", CWD_HELP)
    .option(
      "--runs-dir <dir>",
      "where run folders are (default: closer/runs inside the git folder)",
    )
    .option("--root <dir>", ROOT_HELP)
    .option("--json", "print the worktrees (or what prune removed and kept) as JSON")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (options: WorktreesOptions) => {
      await listCommand(options);
    });
  command.addCommand(
    new Command("prune")
      .description(
        "Remove closer's worktrees that no run needs: the folder is gone, the branch is merged, " +
          "or no live run holds it. Uncommitted work is kept unless --force.",
      )
      .option("--force", "also remove worktrees with uncommitted changes (those changes are lost)")
      .configureHelp({ showGlobalOptions: true })
      .showHelpAfterError()
      .exitOverride()
      .action(async (_options: PruneOptions, self: Command) => {
        // --cwd, --root and --json belong to `worktrees` and are read from there.
        await pruneCommand(self.optsWithGlobals<PruneOptions>());
      }),
  );
  return command;
}

async function listCommand(options: WorktreesOptions): Promise<void> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const repoRoot = await getRepoRoot(cwd);
  const runsDir = resolve(options.runsDir ?? defaultRunsDir(repoRoot));
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

async function pruneCommand(options: PruneOptions): Promise<void> {
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
