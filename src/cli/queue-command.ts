import { Command } from "commander";
import type { QueueFlags } from "./actions/queue.js";

export function makeQueueCommand(): Command {
  const command = new Command("queue")
    .description(
      "The jobs on the Redis queue — waiting, active, completed, failed — with their run's " +
        "status and cost; `queue retry <job>` and `queue remove <job>`.",
    )
    .option("--redis <url>", "the Redis server (default: $CLOSER_REDIS_URL)")
    .option("--json", "print the jobs as a JSON array")
    .option(
      "--watch",
      "redraw the jobs every interval until Ctrl-C (printed when they change without a terminal)",
    )
    .option("--interval <seconds>", "the period of --watch (default: 2)")
    .showHelpAfterError()
    .exitOverride()
    .action(async (flags: QueueFlags) => {
      const { listQueue } = await import("./actions/queue.js");
      process.exitCode = await listQueue(flags);
    });
  command
    .command("retry")
    .description(
      "put a failed (or completed) job back in the queue; a job whose run ended queues a new run of its work",
    )
    .argument("<job>", "the job id `closer queue` shows")
    .option("--redis <url>", "the Redis server (default: $CLOSER_REDIS_URL)")
    .showHelpAfterError()
    .exitOverride()
    .action(async (job: string, flags: QueueFlags) => {
      const { changeJob } = await import("./actions/queue.js");
      process.exitCode = await changeJob("retry", job, { ...command.opts<QueueFlags>(), ...flags });
    });
  command
    .command("remove")
    .description("remove a job that is not running")
    .argument("<job>", "the job id `closer queue` shows")
    .option("--redis <url>", "the Redis server (default: $CLOSER_REDIS_URL)")
    .showHelpAfterError()
    .exitOverride()
    .action(async (job: string, flags: QueueFlags) => {
      const { changeJob } = await import("./actions/queue.js");
      process.exitCode = await changeJob("remove", job, {
        ...command.opts<QueueFlags>(),
        ...flags,
      });
    });
  return command;
}
