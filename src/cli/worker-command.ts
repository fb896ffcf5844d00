import { Command } from "commander";
import type { WorkerFlags } from "./actions/worker.js";

const EXAMPLES = `
Examples:
  $ closer worker --redis redis://queue.internal:6379 --concurrency 2
  $ CLOSER_REDIS_URL=redis://127.0.0.1:6379 closer worker --repo-dir /srv/closer

Each job runs as \`closer run <agent> --issue N\` would, in the worker's clone of the job's
repository. SIGTERM or Ctrl-C stops the running runs as on Ctrl-C and puts their jobs back for
another worker; a second signal quits at once (docs/queue.md#worker).`;

export function makeWorkerCommand(): Command {
  return new Command("worker")
    .description(
      "Take jobs from the Redis queue and run each as a normal closer run: its own worktree, " +
        "record and GitHub side effects; the run's result JSON becomes the job's return value.",
    )
    .option("--redis <url>", "the Redis server (default: $CLOSER_REDIS_URL)")
    .option("--concurrency <k>", "jobs at once (default 1)")
    .option(
      "--repo-dir <dir>",
      "where the worker clones repositories (default: ~/.cache/closer/repos)",
    )
    .option(
      "--stalled-interval <ms>",
      "job lock and stalled-job check period: a crashed worker's job returns within about twice this (default 30000)",
    )
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError()
    .exitOverride()
    .action(async (flags: WorkerFlags) => {
      const { workerFromCommandLine } = await import("./actions/worker.js");
      process.exitCode = await workerFromCommandLine(flags);
    });
}
