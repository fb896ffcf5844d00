import { Command } from "commander";

const HELP_AFTER = `
The bundled example agent works on a fresh copy of the bundled example repository (a slugify
function whose tests fail) in a temporary folder: closer runs it until the tests pass, then prints
the folder and how to see what the run did (docs/cli.md#demo).

With Claude credentials (ANTHROPIC_API_KEY, or a logged-in Claude Code) the model runs live;
without, its answers are replayed from a recorded session through the replay backend, and the
checks (node --test, git) run for real either way. CLOSER_DEMO_BACKEND=replay or =live chooses.

Example:
  $ npx closer demo`;

export function makeDemoCommand(): Command {
  return new Command("demo")
    .description(
      "Run the bundled example agent on a copy of the bundled example repository: declared done, " +
        "a test fails, a retry names it, verified done. Needs no credentials.",
    )
    .addHelpText("after", HELP_AFTER)
    .showHelpAfterError()
    .exitOverride()
    .action(async () => {
      const { runDemo } = await import("./actions/demo.js");
      process.exitCode = await runDemo(process.env);
    });
}
