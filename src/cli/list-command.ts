import { Command } from "commander";
import type { ListOptions } from "./actions/list.js";

const EXAMPLES = `
Examples:
  $ closer list                  agents of the current project
  $ closer list --cwd ../other   agents of another project
  $ closer list --json           name, description, folder and error of each agent as JSON

A broken agent is listed with a short error; run \`closer validate <agent>\` for every problem.`;

export function makeListCommand(): Command {
  return new Command("list")
    .description("List the agents found under .agent/ with their descriptions.")
    .option("--cwd <dir>", "project directory that holds .agent/ (default: the current directory)")
    .option("--json", "print the agents as a JSON array")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (options: ListOptions) => {
      const { runList } = await import("./actions/list.js");
      await runList(options);
    });
}
