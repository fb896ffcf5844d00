import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { CloserError, exitCodeFor } from "../errors.js";
import { makeEnqueueCommand } from "./enqueue-command.js";
import { makeImportCommand } from "./import-command.js";
import { makeInitCommand } from "./init-command.js";
import { makeListCommand } from "./list-command.js";
import { makeQueueCommand } from "./queue-command.js";
import { makeReplayCommand } from "./replay-command.js";
import { makeReportCommand } from "./report-command.js";
import { makeRunCommand } from "./run-command.js";
import { makeRunsCommand } from "./runs-command.js";
import { makeShowCommand } from "./show-command.js";
import { makeValidateCommand } from "./validate-command.js";
import { makeWorkerCommand } from "./worker-command.js";
import { makeWorktreesCommand } from "./worktrees-command.js";

/** The version in package.json (two folders up from src/cli, dist/cli and dist/bin). */
function packageVersion(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version: string }).version;
}

export function makeProgram(): Command {
  const program = new Command("closer")
    .description(
      "Run an autonomous coding agent on a task and end the loop only when the work is " +
        "verifiably done: the model declares completion in schema-checked output, then closer " +
        "runs its own checks (git clean, tests, type check, lint, files, optional review) and, " +
        "when one fails, retries with exactly what it found.",
    )
    .addHelpText(
      "after",
      "\nStart with `closer init <agent>`, check it with `closer validate`, then\n" +
        "`closer run <agent> --task TEXT` or `--issue N`. `closer <command> --help` explains each command.",
    )
    .version(packageVersion())
    .showHelpAfterError()
    .exitOverride();
  program.addCommand(makeListCommand());
  program.addCommand(makeValidateCommand());
  program.addCommand(makeInitCommand());
  program.addCommand(makeImportCommand());
  program.addCommand(makeRunCommand());
  program.addCommand(makeWorktreesCommand());
  program.addCommand(makeReplayCommand());
  program.addCommand(makeRunsCommand());
  program.addCommand(makeShowCommand());
  program.addCommand(makeReportCommand());
  program.addCommand(makeEnqueueCommand());
  program.addCommand(makeWorkerCommand());
  program.addCommand(makeQueueCommand());
  return program;
}

export async function runCli(argv: readonly string[]): Promise<number> {
  try {
    await makeProgram().parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof CloserError) {
      process.stderr.write(`closer: ${error.describe()}\n`);
      return exitCodeFor(error.code);
    }
    process.stderr.write(`closer: unexpected error: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}
