import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { wholeNumberAtLeastOne } from "../../errors.js";
import { DEFAULT_STALLED_INTERVAL_MS, reachableRedis, runWorker } from "../../queue/index.js";
import { makeRedactor } from "../../record/secret-redactor.js";
import { exitCodeOfSignal } from "../../run/exit-code.js";
import { makeProgressReporter, shouldColor } from "../progress.js";
import { withInterrupt } from "../run/interrupt.js";
import { exitCodeAfterError } from "./error-exit.js";

/** `closer worker`'s options as commander parses them. */
export interface WorkerFlags {
  readonly redis?: string;
  readonly concurrency?: string;
  readonly repoDir?: string;
  readonly stalledInterval?: string;
}

const writeError = (text: string) => {
  process.stderr.write(text);
};

/** Where clones go without --repo-dir: the user's cache folder. */
function defaultRepoDir(env: NodeJS.ProcessEnv): string {
  const cache = env.XDG_CACHE_HOME ?? join(homedir(), ".cache");
  return join(cache, "closer", "repos");
}

/** Everything `closer worker` does; returns the exit code once it has stopped. */
export async function workerFromCommandLine(flags: WorkerFlags): Promise<number> {
  try {
    const concurrency =
      flags.concurrency === undefined
        ? 1
        : wholeNumberAtLeastOne("--concurrency", flags.concurrency);
    const stalledIntervalMs =
      flags.stalledInterval === undefined
        ? DEFAULT_STALLED_INTERVAL_MS
        : wholeNumberAtLeastOne("--stalled-interval", flags.stalledInterval);
    const connection = await reachableRedis(flags.redis, process.env);
    const repoDir = resolve(flags.repoDir ?? defaultRepoDir(process.env));
    const style = {
      live: false,
      verbose: false,
      color: shouldColor(process.stderr, process.env),
      redact: makeRedactor(process.env),
    };
    const stopped = await withInterrupt(
      async (signal) => {
        await runWorker({
          connection,
          concurrency,
          repoDir,
          stalledIntervalMs,
          env: process.env,
          signal,
          log: (line) => writeError(`closer worker: ${line}\n`),
          // Jobs of one worker share stderr: each progress line names its job.
          onEventFor: (jobId) =>
            makeProgressReporter({ ...style, write: prefixLines(`job ${jobId} `) }),
        });
        return signal.aborted ? String(signal.reason ?? "SIGTERM") : undefined;
      },
      { write: writeError },
    );
    return stopped === undefined ? 0 : exitCodeOfSignal(stopped);
  } catch (error) {
    return exitCodeAfterError(error);
  }
}

function prefixLines(prefix: string): (text: string) => void {
  return (text) => {
    const lines = text.split("\n");
    const last = lines.pop() ?? "";
    const prefixed = lines.map((line) => (line === "" ? line : `${prefix}${line}`));
    writeError([...prefixed, last === "" ? "" : `${prefix}${last}`].join("\n"));
  };
}
