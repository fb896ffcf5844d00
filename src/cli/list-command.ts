import { Command } from "commander";
import type { ListOptions } from "./actions/list.js";

const EXAMPLES = `
Examples:
  $ closer list                  agents of the current project, each valid or not
  $ closer list --cwd ../other   agents of another project
  $ closer list --json           name, description, folder, validity and first problem as JSON

Each agent is checked as \`closer validate\` checks it. An invalid one is listed with its first
problem (file: field: message); \`closer validate <agent>\` lists every problem with its fix.`;

export function makeListCommand(): Command {
  return new Command("list")
    .description(
      "List the agents found under .agent/ with their descriptions, each valid or with the " +
        "first problem `closer validate` finds in it.",
    )
    .option("--cwd <dir>", "project directory that holds .agent/ (default: the current directory)")
    .option("--json", "print the agents as a JSON array")
    .addHelpText("after", EXAMPLES)
    .action(async (options: ListOptions) => {
      const { runList } = await import("./actions/list.js");
      await runList(options);
    });
}
