import { Command } from "commander";
import { RUN_HELP_AFTER, RUN_OPTIONS } from "./run/run-help.js";
import type { RunFlags } from "./run/run-invocation.js";

export function makeRunCommand(): Command {
  const command = new Command("run")
    .description(
      "Run an agent on a task (a GitHub issue, a written task, or every issue with a label) " +
        "until the work is verifiably done or a limit is reached; the run record keeps everything.",
    )
    .argument("[agent]", "the agent to run: a folder under .agent/ (or give --agent)");
  for (const option of RUN_OPTIONS) command.option(option.flags, option.description);
  return command
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText("after", RUN_HELP_AFTER)
    .showHelpAfterError()
    .exitOverride()
    .action(async (_agent: string | undefined, flags: RunFlags, self: Command) => {
      const { runFromCommandLine } = await import("./actions/run.js");
      process.exitCode = await runFromCommandLine(self.args, flags);
    });
}
