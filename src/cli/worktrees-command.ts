import { Command } from "commander";
import type { PruneOptions, WorktreesOptions } from "./actions/worktrees.js";

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
      const { listCloserWorktrees } = await import("./actions/worktrees.js");
      await listCloserWorktrees(options);
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
        const { pruneCloserWorktrees } = await import("./actions/worktrees.js");
        await pruneCloserWorktrees(self.optsWithGlobals<PruneOptions>());
      }),
  );
  return command;
}
