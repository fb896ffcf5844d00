import { resolve } from "node:path";
import { Command } from "commander";

interface ImportClimptCommandOptions {
  readonly out?: string;
  readonly cwd?: string;
  readonly json?: boolean;
}

const EXAMPLES = `
Examples:
  $ closer import climpt ../app/.agent/iterator              writes .agent/iterator/
  $ closer import climpt ../app/.agent/reviewer --out .agent/review
  $ closer import climpt ../app/.agent/iterator --json       the report as one JSON document

The climpt folder is only read; an --out folder that holds files is refused.
Each key of agent.json and steps_registry.json is listed with the closer key it became,
or as having no equivalent. The written agent is then checked as \`closer validate\` does:
exit code 0 when it is valid (warnings allowed), 2 when it is not.`;

function makeImportClimptCommand(): Command {
  return new Command("climpt")
    .description(
      "Write a closer agent from a climpt agent folder (.agent/<name> with agent.json, " +
        "steps_registry.json, prompts/, schemas/) and report what each key became.",
    )
    .argument("<path>", "the climpt agent folder, e.g. ../app/.agent/iterator")
    .option("--out <dir>", "the closer agent folder to write (default: .agent/<climpt name>)")
    .option("--cwd <dir>", "project directory the paths are relative to (default: the current one)")
    .option("--json", "print the report as one JSON document")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (source: string, options: ImportClimptCommandOptions) => {
      const { runImportClimpt } = await import("./actions/import.js");
      await runImportClimpt({
        source,
        cwd: resolve(options.cwd ?? process.cwd()),
        ...(options.out === undefined ? {} : { out: options.out }),
        json: options.json === true,
      });
    });
}

export function makeImportCommand(): Command {
  return new Command("import")
    .description("Bring an agent of another runner into closer.")
    .addCommand(makeImportClimptCommand())
    .showHelpAfterError()
    .exitOverride();
}
