import { resolve } from "node:path";
import { Command } from "commander";

interface InitOptions {
  readonly cwd?: string;
  readonly force?: boolean;
}

const EXAMPLES = `
Examples:
  $ closer init iterator                   create .agent/iterator/
  $ closer init iterator --cwd ~/project   create it in another project
  $ closer init iterator --force           rewrite the scaffold files of an existing agent

The agent works on a GitHub issue (--issue N) or a written task (--task TEXT) until
\`git status --porcelain\` is empty and \`npm test\` passes. It also defines type-check, lint
and format-check validators: add them to completionSteps["complete.issue"].completionConditions
in steps_registry.json to use them.`;

export function makeInitCommand(): Command {
  return new Command("init")
    .summary("Scaffold a complete, working issue agent under .agent/<agent>/.")
    .description(
      "Scaffold a working issue agent under .agent/<agent>/: agent.json, " +
        "steps_registry.json, an output schema, and the step, retry and closure review prompts.",
    )
    .argument("<agent>", "name of the new agent (lowercase letters, digits, '.', '_' or '-')")
    .option(
      "--cwd <dir>",
      "project directory to create .agent/<agent>/ in (default: the current directory)",
    )
    .option("--force", "overwrite the scaffold files of an existing agent (other files are kept)")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (agent: string, options: InitOptions) => {
      const { runInit } = await import("./actions/init.js");
      await runInit(agent, resolve(options.cwd ?? process.cwd()), options.force === true);
    });
}
