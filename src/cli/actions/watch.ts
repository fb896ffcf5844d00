import { resolve } from "node:path";
import { CloserError } from "../../errors.js";
import { resolveRepo } from "../../github/resolve-repo.js";
import {
  describeEvery,
  listWatches,
  openWatchQueue,
  reachableRedis,
  runWatcher,
  stopWatch,
  type WatchRow,
} from "../../queue/index.js";
import { exitCodeOfSignal } from "../../run/exit-code.js";
import { withInterrupt } from "../run/interrupt.js";
import { assertKnownOptions, hintFor } from "../run/known-options.js";
import { exitCodeAfterError } from "./error-exit.js";
import type { AgentParameterTokens } from "./job-pieces.js";
import { type JobTemplateFlags, jobTemplateOf } from "./job-template.js";

/** `closer watch`'s options as commander parses them. */
export interface WatchFlags extends JobTemplateFlags {
  readonly label?: string;
  readonly every?: string;
  readonly redis?: string;
  readonly stop?: boolean;
  readonly list?: boolean;
  readonly json?: boolean;
}

/** Without --every: five minutes. */
const DEFAULT_EVERY_MS = 5 * 60_000;

const USAGE =
  "closer watch <agent> --label L [--every 5m]; closer watch --stop --label L; closer watch --list";

const writeError = (text: string) => {
  process.stderr.write(text);
};

/** `--every`: minutes (`5`), or a number with `s`, `m` or `h` (`30s`, `2h`); at least a second. */
export function parseEvery(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(s|m|min|h)?\s*$/.exec(text);
  const unit = match?.[2] ?? "m";
  const scale = unit === "s" ? 1000 : unit === "h" ? 3_600_000 : 60_000;
  const ms = match === null ? Number.NaN : Math.round(Number(match[1]) * scale);
  if (Number.isFinite(ms) && ms >= 1000) return ms;
  throw new CloserError("usage_error", "--every must be a duration of at least a second", {
    expected: "minutes (5), or a number with s, m or h (30s, 10m, 1h)",
    found: JSON.stringify(text),
    fix: "pass e.g. --every 5 or --every 30s",
  });
}

/** Everything `closer watch` does; returns the exit code once it has stopped. */
export async function watchFromCommandLine(
  agent: string | undefined,
  flags: WatchFlags,
  parameters: AgentParameterTokens = { parameterTokens: [], options: [] },
): Promise<number> {
  try {
    if (flags.list === true || flags.stop === true) refuseParameters(parameters);
    if (flags.list === true) return await listSchedules(flags);
    if (flags.label === undefined || flags.label.trim() === "") {
      throw new CloserError("usage_error", "missing --label: say which label to watch", {
        fix: USAGE,
      });
    }
    if (flags.stop === true) return await stopSchedule(flags.label, flags);
    if (agent === undefined) {
      throw new CloserError("usage_error", "missing agent: say which agent the jobs run", {
        fix: USAGE,
      });
    }
    const everyMs = flags.every === undefined ? DEFAULT_EVERY_MS : parseEvery(flags.every);
    const connection = await reachableRedis(flags.redis, process.env);
    const template = await jobTemplateOf(agent, flags, parameters, "closer watch");
    const stopped = await withInterrupt(
      async (signal) => {
        await runWatcher({
          connection,
          data: { version: 1, ...template, label: flags.label as string },
          everyMs,
          env: process.env,
          signal,
          log: (line) => writeError(`closer watch: ${line}\n`),
        });
        return signal.aborted ? String(signal.reason ?? "SIGTERM") : undefined;
      },
      { write: writeError, kept: "the schedule stays on Redis for the other watchers" },
    );
    return stopped === undefined ? 0 : exitCodeOfSignal(stopped);
  } catch (error) {
    return exitCodeAfterError(error);
  }
}

/** --list and --stop run no agent: a flag neither they nor closer watch know is refused. */
function refuseParameters(parameters: AgentParameterTokens): void {
  const [first] = parameters.parameterTokens;
  if (first === undefined) return;
  const known = { command: "closer watch", options: parameters.options };
  assertKnownOptions([first], known);
  throw new CloserError("usage_error", `unexpected argument "${first}"`, {
    found: first,
    fix: hintFor(known),
  });
}

async function stopSchedule(label: string, flags: WatchFlags): Promise<number> {
  const { owner, repo } = await resolveRepo(
    resolve(flags.cwd ?? process.cwd()),
    flags.repo === undefined ? {} : { override: flags.repo },
  );
  const queue = await openWatchQueue(await reachableRedis(flags.redis, process.env));
  try {
    if (!(await stopWatch(queue, { owner, name: repo }, label))) {
      throw new CloserError(
        "not_found",
        `no schedule watches ${owner}/${repo} for label ${label}`,
        {
          fix: "closer watch --list lists the schedules",
        },
      );
    }
    writeError(`closer watch: schedule of ${owner}/${repo} label ${label} removed\n`);
    return 0;
  } finally {
    await queue.close();
  }
}

async function listSchedules(flags: WatchFlags): Promise<number> {
  const queue = await openWatchQueue(await reachableRedis(flags.redis, process.env));
  try {
    const rows = await listWatches(queue);
    process.stdout.write(
      flags.json === true ? `${JSON.stringify(rows)}\n` : `${formatWatchTable(rows)}\n`,
    );
    return 0;
  } finally {
    await queue.close();
  }
}

function formatWatchTable(rows: readonly WatchRow[]): string {
  if (rows.length === 0) return "no schedules";
  return rows
    .map((row) => {
      const next = row.next === undefined ? "" : `, next ${new Date(row.next).toISOString()}`;
      return `${row.id}: agent ${row.agent ?? "-"}, every ${describeEvery(row.everyMs)}${next}`;
    })
    .join("\n");
}
