import { Command, InvalidArgumentError } from "commander";
import type { ShowOptions } from "./actions/show.js";

const EXAMPLES = `
Examples:
  $ closer show last                 the newest run, iteration by iteration
  $ closer show 20300101-1200        a run by a unique prefix of its id
  $ closer show last --iteration 3   the prompt and transcript of iteration 3
  $ closer show last --json          the whole run as one JSON document

closer runs lists the run ids.`;

/** `closer show <run-id|last>` (docs/observe.md#show): what one run did. */
export function makeShowCommand(): Command {
  return new Command("show")
    .description(
      "Show one run: the task, the baseline, each iteration (prompt, queries, declaration, " +
        "checks, retry), the end and the cost by reason.",
    )
    .argument("<run>", 'a run id, a unique prefix of one, or "last"')
    .option("--cwd <dir>", "the project folder (default: the current directory)")
    .option(
      "--runs-dir <dir>",
      "where run folders are (default: closer/runs inside the git folder)",
    )
    .option("--agent <name>", "look in this agent's runner.logging.runsDir")
    .option("--iteration <n>", "print that iteration's prompt and transcript", parseIteration)
    .option("--json", "print the run view as one JSON document")
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (wanted: string, options: ShowOptions) => {
      const { runShow } = await import("./actions/show.js");
      await runShow(wanted, options);
    });
}

function parseIteration(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError("an iteration number, 1 or more");
  return n;
}
