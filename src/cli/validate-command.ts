import { resolve } from "node:path";
import { Command } from "commander";

interface ValidateOptions {
  readonly cwd?: string;
  readonly json?: boolean;
}

const EXAMPLES = `
Examples:
  $ closer validate              check every agent under .agent/
  $ closer validate iterator     check .agent/iterator/ only
  $ closer validate --json       the problems as JSON, for editors and CI

Each problem is one line: file: JSON path: message (fix: …).
Exit code 0 when every agent is valid (warnings allowed), 2 when anything is wrong.`;

export function makeValidateCommand(): Command {
  return new Command("validate")
    .summary("Check agent definitions without running them (every problem, not the first).")
    .description(
      "Check agent definitions without running them: agent.json and steps_registry.json load, " +
        "every step, retry and closure review prompt resolves, every template variable is " +
        "supplied, output schemas resolve, and steps, validators and patterns point at things " +
        "that exist.",
    )
    .argument("[agent]", "agent to check (a folder under .agent/); default: every agent")
    .option("--cwd <dir>", "project directory that holds .agent/ (default: the current directory)")
    .option("--json", "print the result as one JSON document")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (agent: string | undefined, options: ValidateOptions) => {
      const { runValidate } = await import("./actions/validate.js");
      await runValidate(agent, resolve(options.cwd ?? process.cwd()), options.json === true);
    });
}
