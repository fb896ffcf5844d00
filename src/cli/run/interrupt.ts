import { readdirSync, readFileSync } from "node:fs";
import { exitCodeOfSignal } from "../../run/exit-code.js";

/** How an interrupt is handled while a run is going. */
export interface InterruptOptions {
  /** Where the notice goes (stderr). */
  readonly write: (text: string) => void;
  /** Leaves at once on the second signal; default process.exit. */
  readonly exit?: (code: number) => void;
  /** Ends what the run started before leaving at once; default killChildProcessGroups. */
  readonly killChildren?: () => void;
  /** What stopping keeps, as the notice says it; default: the run's record and work. */
  readonly kept?: string;
}

/** The signals that end a run: a closed terminal or dropped ssh (SIGHUP), Ctrl-C, Ctrl-\\, a kill. */
export const ENDING_SIGNALS = ["SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM"] as const;

/** Parent id and process group of a process, from /proc; undefined when it is gone. */
function readParentAndGroup(pid: string): { parent: number; group: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may itself hold spaces and parentheses).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { parent: Number(fields[1]), group: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/**
 * SIGKILL to every process group a child of this process leads. Commands and
 * the Claude Code executable run detached, in groups of their own, so the
 * terminal's Ctrl-C never reaches them: without this a quit at once would
 * leave the agent working on. Reads /proc, so it does nothing off Linux.
 */
export function killChildProcessGroups(parentPid: number = process.pid): void {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = Number(entry);
    const ids = readParentAndGroup(entry);
    if (ids?.parent !== parentPid || ids.group !== pid) continue;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * Runs `work` with an AbortSignal that the first ending signal — SIGHUP,
 * SIGINT (Ctrl-C), SIGQUIT or SIGTERM — aborts with the signal's name as the
 * reason: the run ends `aborted`, keeping its record and its work, and the
 * caller exits with 128 + n (docs/cli.md#interrupt). A second signal kills
 * what the run started and exits at once with 128 + n of that signal. The
 * handlers exist only while `work` runs; meanwhile a write to a terminal
 * that went away (SIGHUP) is dropped instead of ending closer.
 */
export async function withInterrupt<T>(
  work: (signal: AbortSignal) => Promise<T>,
  options: InterruptOptions,
): Promise<T> {
  const controller = new AbortController();
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const killChildren = options.killChildren ?? (() => killChildProcessGroups());
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      killChildren();
      exit(exitCodeOfSignal(signal));
      return;
    }
    const again =
      signal === "SIGINT" || signal === undefined
        ? "press Ctrl-C again to quit at once"
        : `another ${signal} quits at once`;
    try {
      options.write(
        `\ncloser: stopping${signal === undefined ? "" : ` (${signal})`}; ${options.kept ?? "the run record and the work so far are kept"} (${again})\n`,
      );
    } catch {
      // the terminal is gone (SIGHUP): the record says what happened
    }
    controller.abort(signal);
  };
  const ignoreWriteError = () => {};
  for (const stream of [process.stdout, process.stderr]) stream.on("error", ignoreWriteError);
  for (const signal of ENDING_SIGNALS) process.on(signal, onSignal);
  try {
    return await work(controller.signal);
  } finally {
    for (const signal of ENDING_SIGNALS) process.off(signal, onSignal);
    for (const stream of [process.stdout, process.stderr]) stream.off("error", ignoreWriteError);
  }
}
