import { readdirSync, readFileSync } from "node:fs";

/** How an interrupt is handled while a run is going. */
export interface InterruptOptions {
  /** Where the notice goes (stderr). */
  readonly write: (text: string) => void;
  /** Leaves at once on the second signal; default process.exit. */
  readonly exit?: (code: number) => void;
  /** Ends what the run started before leaving at once; default killChildProcessGroups. */
  readonly killChildren?: () => void;
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

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
 * Runs `work` with an AbortSignal that the first Ctrl-C (SIGINT) or SIGTERM
 * aborts: the run ends `aborted`, keeping its record and its work. A second
 * signal kills what the run started and exits at once with 130. The handlers
 * exist only while `work` runs.
 */
export async function withInterrupt<T>(
  work: (signal: AbortSignal) => Promise<T>,
  options: InterruptOptions,
): Promise<T> {
  const controller = new AbortController();
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const killChildren = options.killChildren ?? (() => killChildProcessGroups());
  const onSignal = () => {
    if (controller.signal.aborted) {
      killChildren();
      exit(130);
      return;
    }
    options.write(
      "\ncloser: stopping; the run record and the work so far are kept (press Ctrl-C again to quit at once)\n",
    );
    controller.abort();
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  try {
    return await work(controller.signal);
  } finally {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
}
