import { Command } from "commander";
import type { DoctorFlags } from "./actions/doctor.js";

const EXAMPLES = `
Examples:
  $ closer doctor                 what every agent under .agent/ needs, checked on this machine
  $ closer doctor iterator        what one agent needs
  $ closer doctor --queue         the queue's Redis too
  $ closer doctor --json          {ok, checks: [{name, status, detail, fix?, agents?}]}

Each line is ok, missing (a run would fail) or warning (some runs may), and each thing that is
not ok has a fix line with the command that installs or sets it: Node, git and its identity,
the OS sandbox (bubblewrap, socat, ripgrep, user namespaces), each backend's CLI and
credential, GITHUB_TOKEN for agents that work on issues, Redis with --queue.
Exit code 0 when nothing required is missing, 1 otherwise, 2 for a usage error.`;

/** `closer doctor` (docs/cli.md#doctor). */
export function makeDoctorCommand(): Command {
  return new Command("doctor")
    .description(
      "Check that this machine has what the agents need to run: Node, git, the OS sandbox, " +
        "each backend's CLI and credential, GitHub and the queue's Redis.",
    )
    .argument("[agent]", "the agent to check (a folder under .agent/); default: every agent")
    .option("--cwd <dir>", "project directory that holds .agent/ (default: the current directory)")
    .option(
      "--queue",
      "check the queue's Redis (checked anyway when --redis or CLOSER_REDIS_URL names one)",
    )
    .option("--redis <url>", "the Redis server of the queue (default: $CLOSER_REDIS_URL)")
    .option("--json", "print the checks as one JSON document")
    .addHelpText("after", EXAMPLES)
    .action(async (agent: string | undefined, flags: DoctorFlags) => {
      const { runDoctor } = await import("./actions/doctor.js");
      process.exitCode = await runDoctor(agent, flags);
    });
}
