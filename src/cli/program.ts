import { Command, CommanderError } from "commander";
import { CloserError, exitCodeFor } from "../errors.js";
import { makeCompletionCommand } from "./completion-command.js";
import { makeDemoCommand } from "./demo-command.js";
import { makeDoctorCommand } from "./doctor-command.js";
import { makeEnqueueCommand } from "./enqueue-command.js";
import { makeImportCommand } from "./import-command.js";
import { makeInitCommand } from "./init-command.js";
import { makeListCommand } from "./list-command.js";
import { readPackageInfo } from "./package-info.js";
import { makeQueueCommand } from "./queue-command.js";
import { makeReplayCommand } from "./replay-command.js";
import { makeReportCommand } from "./report-command.js";
import { makeRunCommand } from "./run-command.js";
import { makeRunsCommand } from "./runs-command.js";
import { makeServeCommand } from "./serve-command.js";
import { makeShowCommand } from "./show-command.js";
import { oneLineUsage } from "./usage-error.js";
import { makeValidateCommand } from "./validate-command.js";
import { makeWatchCommand } from "./watch-command.js";
import { makeWorkerCommand } from "./worker-command.js";
import { makeWorktreesCommand } from "./worktrees-command.js";

/** One command of `closer --help`: its group and the line that sums it up (docs/cli.md#help). */
interface CommandEntry {
  readonly make: () => Command;
  readonly summary: string;
}

/** The commands in the groups and order `closer --help` shows them. */
const COMMAND_GROUPS: readonly { readonly heading: string; readonly commands: CommandEntry[] }[] = [
  {
    heading: "Start:",
    commands: [
      { make: makeInitCommand, summary: "scaffold a working agent under .agent/<agent>/" },
      { make: makeRunCommand, summary: "run an agent on an issue or a task until verifiably done" },
      { make: makeDemoCommand, summary: "the bundled example agent on the bundled example repo" },
    ],
  },
  {
    heading: "Inspect:",
    commands: [
      { make: makeListCommand, summary: "the agents under .agent/, each valid or not" },
      { make: makeValidateCommand, summary: "check agent definitions without running them" },
      { make: makeDoctorCommand, summary: "check this machine has what the agents need" },
      { make: makeRunsCommand, summary: "past runs, newest first" },
      { make: makeShowCommand, summary: "one run, iteration by iteration" },
      { make: makeReportCommand, summary: "one run as a self-contained HTML file" },
      { make: makeReplayCommand, summary: "make a recorded run's decisions again" },
      { make: makeWorktreesCommand, summary: "closer's worktrees; prune the orphans" },
    ],
  },
  {
    heading: "Scale:",
    commands: [
      { make: makeEnqueueCommand, summary: "queue runs on Redis for workers" },
      { make: makeWorkerCommand, summary: "take jobs from the queue and run them" },
      { make: makeQueueCommand, summary: "the jobs on the queue; retry or remove one" },
      { make: makeWatchCommand, summary: "queue the issues that get a label, on a schedule" },
      { make: makeServeCommand, summary: "queue issues as GitHub says they get a label" },
    ],
  },
  {
    heading: "Author:",
    commands: [
      { make: makeImportCommand, summary: "bring an agent of another runner (climpt) in" },
      { make: makeCompletionCommand, summary: "a shell completion script (bash, zsh, fish)" },
    ],
  },
];

export function makeProgram(): Command {
  const program = new Command("closer")
    .description(
      "Run an autonomous coding agent on a task and end the loop only when the work is " +
        "verifiably done: the model declares completion in schema-checked output, then closer " +
        "runs its own checks (git clean, tests, type check, lint, files, optional review) and, " +
        "when one fails, retries with exactly what it found.",
    )
    .usage("<command> [options]")
    .addHelpText(
      "after",
      "\nStart with `closer init <agent>`, check it with `closer validate` and `closer doctor`, then\n" +
        "`closer run <agent> --task TEXT` or `--issue N`. `closer <command> --help` explains each command.",
    )
    .version(readPackageInfo().version, "-v, --version", "print closer's version")
    .helpOption("-h, --help", "print this help");
  for (const group of COMMAND_GROUPS) {
    for (const entry of group.commands) {
      program.addCommand(entry.make().summary(entry.summary).helpGroup(group.heading));
    }
  }
  program.addHelpCommand(
    new Command("help")
      .argument("[command]", "the command to explain")
      .description("print the help of a command")
      .helpGroup("Author:"),
  );
  applyErrorConventions(program, "closer");
  return program;
}

/**
 * Every command, its subcommands too: a usage error is one line with commander's suggestion,
 * then where the options are listed, never the whole help (docs/cli.md#unknown-options).
 */
function applyErrorConventions(command: Command, path: string): void {
  command
    .exitOverride()
    .showSuggestionAfterError(true)
    .showHelpAfterError(`(see ${path} --help)`)
    .configureOutput({ outputError: (text, write) => write(`closer: ${oneLineUsage(text)}\n`) });
  for (const sub of command.commands) applyErrorConventions(sub, `${path} ${sub.name()}`);
}

export async function runCli(argv: readonly string[]): Promise<number> {
  try {
    const program = makeProgram();
    // Bare `closer` asks what closer can do: the help, on stdout, and no error.
    if (argv.length === 0) {
      program.outputHelp();
      return 0;
    }
    await program.parseAsync([...argv], { from: "user" });
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
