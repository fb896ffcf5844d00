/**
 * The Claude Code process, started for the SDK (its `spawnClaudeCodeProcess`
 * hook) in a process group of its own, so a timeout or Ctrl-C ends the
 * executable and everything it started — and nothing is left running after a
 * query. This is the Claude Agent SDK's spawn, kept in the backend that owns it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { SpawnedProcess, SpawnOptions } from "@anthropic-ai/claude-agent-sdk";
import { isProcessGroupAlive, killProcessGroup } from "../../process/run-command.js";

const STDERR_LIMIT_CHARS = 64 * 1024;
const POLL_MS = 25;

/** The started executable, as the backend sees it. */
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
  exit(): { readonly code: number | null; readonly signal: string | null } | undefined;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Waits for `promise`, at most `ms`; the timer does not outlive the wait. */
async function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((done) => {
    timer = setTimeout(done, ms);
  });
  await Promise.race([promise, timeout]);
  clearTimeout(timer);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

async function waitUntilGone(groupId: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await isProcessGroupAlive(groupId)) && Date.now() < deadline) await sleep(POLL_MS);
}

/** The SDK's view of the child; its own shutdown signals reach the whole group. */
function asSpawnedProcess(child: ChildProcess): SpawnedProcess {
  // biome-ignore lint/suspicious/noExplicitAny: forwards listeners of the SDK's overloads unchanged
  type Listener = (...args: any[]) => void;
  if (!child.stdin || !child.stdout) throw new Error("the Claude Code process has no stdio pipes");
  return {
    stdin: child.stdin,
    stdout: child.stdout,
    get killed() {
      return child.killed;
    },
    get exitCode() {
      return child.exitCode;
    },
    get signalCode() {
      return child.signalCode;
    },
    kill(signal: NodeJS.Signals) {
      signalGroup(child, signal);
      return true;
    },
    on: (event: string, listener: Listener) => child.on(event, listener),
    once: (event: string, listener: Listener) => child.once(event, listener),
    off: (event: string, listener: Listener) => child.off(event, listener),
  } as SpawnedProcess;
}

export function makeClaudeProcess(options: { readonly graceMs: number }): ClaudeProcess {
  let child: ChildProcess | undefined;
  let stderrTail = "";
  let ended: { code: number | null; signal: string | null } | undefined;
  let exited: Promise<void> = Promise.resolve();

  const endGroup = async () => {
    const groupId = child?.pid;
    if (groupId === undefined) return;
    await killProcessGroup(groupId, options.graceMs);
    await waitUntilGone(groupId, options.graceMs);
  };

  return {
    spawn({ command, args, cwd, env }) {
      const started = spawn(command, args, {
        cwd,
        env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        windowsHide: true,
      });
      child = started;
      started.once("exit", (code, signal) => {
        ended = { code, signal };
      });
      // `close` comes after the exit and after stderr was read to its end.
      exited = new Promise((done) => {
        started.once("close", () => done());
        started.once("error", () => done());
      });
      started.stderr?.setEncoding("utf8");
      started.stderr?.on("data", (chunk: string) => {
        stderrTail = (stderrTail + chunk).slice(-STDERR_LIMIT_CHARS);
      });
      return asSpawnedProcess(started);
    },
    async terminate() {
      await endGroup();
      await waitAtMost(exited, options.graceMs);
    },
    async settle() {
      await waitAtMost(exited, options.graceMs);
      await endGroup();
    },
    stderr: () => stderrTail,
    exit: () => ended,
  };
}
