/**
 * One sandbox wrap serves every process of a run's kind (docs/sandbox.md#how-it-runs).
 * Wrapping costs a walk of the tree, so it is done once, around a fixed
 * command that runs whatever the launch puts in its environment: the wrapped
 * command `eval`s `CLOSER_SANDBOXED_COMMAND`, a shell line that `exec`s the
 * program with its arguments quoted. Starting a process then stays
 * synchronous, as the spawn hooks that call it require.
 */
import type { Launch, LaunchWrapper } from "../ports/process.js";
import { notSetIn } from "./tool-caches.js";

/** The variable the sandboxed shell reads the program from; it is not passed on to the program. */
export const SANDBOXED_COMMAND_VARIABLE = "CLOSER_SANDBOXED_COMMAND";

/** What the sandbox wraps, once per kind and run. */
export const TRAMPOLINE = `eval "$${SANDBOXED_COMMAND_VARIABLE}"`;

/** The wrapped trampoline, as the sandbox library returned it. */
export interface WrappedTrampoline {
  readonly argv: readonly string[];
}

export interface SandboxedLaunchOptions {
  /** The run's own temp folder, the program's TMPDIR. */
  readonly tmpDir: string;
  /**
   * The sandbox library sends connections to loopback past its proxy; a kind allowed a
   * loopback host (a model API on this machine) has NO_PROXY cleared so they go through it.
   */
  readonly clearNoProxy: boolean;
  /**
   * Variables every process gets unless its launch sets them already (in any case): the
   * kind's own toolchain caches (docs/sandbox.md#caches).
   */
  readonly defaults?: Readonly<Record<string, string>>;
}

/** Quotes a word for a POSIX shell. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The shell line that runs the launch's program inside the sandbox. */
export function sandboxedCommandLine(launch: Launch, options: SandboxedLaunchOptions): string {
  const unset = [
    SANDBOXED_COMMAND_VARIABLE,
    ...(options.clearNoProxy ? ["NO_PROXY", "no_proxy"] : []),
  ];
  return [
    "exec env",
    ...unset.map((name) => `-u ${name}`),
    shellQuote(`TMPDIR=${options.tmpDir}`),
    // zsh (a user's login shell, and Claude Code's Bash when installed) ignores TMPDIR: its
    // here-documents and `=(…)` files go under TMPPREFIX, /tmp/zsh unless set.
    shellQuote(`TMPPREFIX=${options.tmpDir}/zsh`),
    shellQuote(launch.file),
    ...launch.args.map(shellQuote),
  ].join(" ");
}

export function makeSandboxedLaunch(
  wrapped: WrappedTrampoline,
  options: SandboxedLaunchOptions,
): LaunchWrapper {
  const [file, ...args] = wrapped.argv;
  if (file === undefined) throw new Error("the sandbox returned an empty command");
  return (launch) => ({
    file,
    args,
    env: {
      ...notSetIn(options.defaults ?? {}, launch.env),
      ...launch.env,
      // bash takes a socket on stdin (as Node's pipes are) for an ssh session and reads the
      // user's ~/.bashrc unless it is nested: it must not put its PATH before the launch's.
      SHLVL: "1",
      // npm looks for a newer npm on the registry after a command; the check would only be refused.
      npm_config_update_notifier: "false",
      [SANDBOXED_COMMAND_VARIABLE]: sandboxedCommandLine(launch, options),
    },
  });
}
