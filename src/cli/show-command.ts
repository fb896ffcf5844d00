import { Command, InvalidArgumentError } from "commander";
import { CloserError } from "../errors.js";
import { resolveRunId } from "../observe/find-runs.js";
import { locateRunsDir } from "../observe/locate-runs-dir.js";
import { readIterationFiles } from "../observe/read-iteration-files.js";
import { readRunView } from "../observe/read-run-view.js";
import { COLOR, PLAIN, renderRunView } from "../observe/render-run-view.js";
import { shouldColor } from "./progress.js";

interface ShowOptions {
  readonly cwd?: string;
  readonly runsDir?: string;
  readonly agent?: string;
  readonly iteration?: number;
  readonly json?: boolean;
}

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
      const runsDir = await locateRunsDir({
        cwd: options.cwd ?? process.cwd(),
        ...(options.runsDir === undefined ? {} : { runsDir: options.runsDir }),
        ...(options.agent === undefined ? {} : { agent: options.agent }),
      });
      const { runDir } = await resolveRunId(runsDir, wanted);
      if (options.iteration !== undefined) {
        process.stdout.write(await describeIteration(runDir, options.iteration));
        return;
      }
      const view = await readRunView(runDir);
      if (options.json) {
        process.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
        return;
      }
      const paint = shouldColor(process.stdout, process.env) ? COLOR : PLAIN;
      process.stdout.write(renderRunView(view, paint));
    });
}

function parseIteration(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError("an iteration number, 1 or more");
  return n;
}

async function describeIteration(runDir: string, n: number): Promise<string> {
  const files = await readIterationFiles(runDir, n);
  if (files.every((file) => file.text === undefined)) {
    throw new CloserError("usage_error", `the run has no prompt or transcript of iteration ${n}`, {
      file: runDir,
      fix: "closer show <run> lists its iterations",
    });
  }
  return files
    .map((file) =>
      file.text === undefined
        ? `── ${file.label}: none on record ──\n`
        : `── ${file.label} (${file.file}) ──\n${file.text.trimEnd()}\n`,
    )
    .join("\n");
}
