/**
 * The Claude Code process the SDK asks for (its `spawnClaudeCodeProcess`
 * hook), started by process/ in a process group of its own, so a timeout or
 * Ctrl-C ends the executable and everything it started — and nothing is left
 * running after a query.
 */
import type { SpawnedProcess, SpawnOptions } from "@anthropic-ai/claude-agent-sdk";
import type { LaunchWrapper } from "../../ports/process.js";
import {
  type GroupedProcess,
  type ProcessExit,
  startGroupedProcess,
} from "../../process/grouped-process.js";

/** The executable of one query, as the backend sees it; the SDK may never start it. */
export interface ClaudeProcess {
  /** Starts the executable; handed to the SDK as `spawnClaudeCodeProcess`. */
  readonly spawn: (options: SpawnOptions) => SpawnedProcess;
  /** SIGTERM to the whole group, SIGKILL after the grace period; resolves when the group is gone. */
  terminate(): Promise<void>;
  /** Waits for the executable to exit, then ends whatever it left in its group. */
  settle(): Promise<void>;
  /** The tail of what the executable wrote to stderr. */
  stderr(): string;
  /** How the executable ended; undefined while it runs or when it never started. */
  exit(): ProcessExit | undefined;
  /** Processes it started outside its group that held its pipes after it ended. */
  leftRunning(): readonly { readonly pid: number; readonly command: string }[];
}

export function makeClaudeProcess(options: {
  readonly graceMs: number;
  /** The run's OS sandbox (docs/sandbox.md), when it is on. */
  readonly sandbox?: LaunchWrapper;
}): ClaudeProcess {
  let started: GroupedProcess | undefined;
  return {
    spawn({ command, args, cwd, env }) {
      started = startGroupedProcess({
        file: command,
        args,
        env,
        graceMs: options.graceMs,
        ...(cwd === undefined ? {} : { cwd }),
        ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
      });
      return started.child;
    },
    terminate: async () => started?.terminate(),
    settle: async () => started?.settle(),
    stderr: () => started?.stderr() ?? "",
    exit: () => started?.exit(),
    leftRunning: () => started?.leftRunning() ?? [],
  };
}
