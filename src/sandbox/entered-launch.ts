/**
 * How one process starts inside a held sandbox (docs/sandbox.md#held-sandbox), as a plain
 * launch, so starting it stays synchronous:
 *
 * 1. `nsenter` joins the holder's mounts, network and processes, through the user namespace
 *    that owns them, by closer's own handles of them;
 * 2. `unshare` gives the process a process namespace and a `/proc` of its own, ended with it,
 *    and its working folder, found inside;
 * 3. where the owner is not the sandbox's user namespace, a user namespace maps the process
 *    back to the user it runs as in the sandbox;
 * 4. `setpriv` drops every capability those steps needed, and forbids gaining any;
 * 5. the library's seccomp helper applies its filter and reports refused writes under the
 *    entry's attribution key; then the program runs.
 */
import type { Launch } from "../ports/process.js";
import type { HeldSandbox } from "./held-sandbox.js";
import { notSetIn } from "./tool-caches.js";

/** How processes join a held sandbox, as the machine allows it (`src/sandbox/held-entry.ts`). */
export interface JoinWay {
  /** The owner of the sandbox's namespaces is the parent of its user namespace (bubblewrap made two). */
  readonly throughParent: boolean;
  /** The ids the process runs as in the sandbox. */
  readonly uid: number;
  readonly gid: number;
}

export interface EntryLaunchOptions {
  readonly held: HeldSandbox;
  readonly join: JoinWay;
  /** The entry's attribution key: base64 of its command id (the proxy and the monitor read it). */
  readonly attributionKey: string;
  /** The run's own temp folder, the program's TMPDIR. */
  readonly tmpDir: string;
  /** A kind allowed a loopback host has NO_PROXY cleared, so those connections go through the proxy. */
  readonly clearNoProxy: boolean;
  /** Variables every process gets unless its launch sets them (the kind's caches). */
  readonly defaults?: Readonly<Record<string, string>>;
  /** Where a launch that names no folder starts. */
  readonly cwd: string;
}

/** The holder's variables, carrying the entry's key instead of the holder's. */
function variablesForEntry(held: HeldSandbox, key: string): Record<string, string> {
  const forms: [string, string][] = [
    [held.attributionKey, key],
    [encodeURIComponent(held.attributionKey), encodeURIComponent(key)],
  ];
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(held.env)) {
    env[name] = forms.reduce((text, [from, to]) => text.split(from).join(to), value);
  }
  return env;
}

/** The program's environment, as the library's wrap and closer's trampoline would make it. */
export function enteredEnvironment(
  launch: Launch,
  options: EntryLaunchOptions,
): Record<string, string> {
  // The library's variables first, and the launch's own after them, where a program that
  // shows its environment shows them last; the library's win all the same.
  const env = variablesForEntry(options.held, options.attributionKey);
  const given = { ...notSetIn(options.defaults ?? {}, launch.env), ...launch.env };
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined || options.held.unset.includes(name) || Object.hasOwn(env, name)) {
      continue;
    }
    env[name] = value;
  }
  if (options.clearNoProxy) {
    delete env.NO_PROXY;
    delete env.no_proxy;
  }
  // bash takes a socket on stdin (as Node's pipes are) for an ssh session and reads the
  // user's ~/.bashrc unless it is nested: it must not put its PATH before the launch's.
  env.SHLVL = "1";
  // npm looks for a newer npm on the registry after a command; the check would only be refused.
  env.npm_config_update_notifier = "false";
  env.TMPDIR = options.tmpDir;
  // zsh ignores TMPDIR: its here-documents and `=(…)` files go under TMPPREFIX.
  env.TMPPREFIX = `${options.tmpDir}/zsh`;
  return env;
}

/** The launch that starts `launch`'s program inside the held sandbox. */
export function enteredLaunch(
  launch: Launch,
  options: EntryLaunchOptions,
): { file: string; args: string[]; env: Record<string, string> } {
  const { held, join } = options;
  const { tools } = held;
  const args = [
    `--user=${held.namespaces.user}`,
    ...(join.throughParent ? ["--user-parent"] : []),
    `--mount=${held.namespaces.mnt}`,
    `--net=${held.namespaces.net}`,
    `--pid=${held.namespaces.pid}`,
    "--preserve-credentials",
    "--",
    tools.unshare,
    `--wd=${launch.cwd ?? options.cwd}`,
    "--pid",
    "--fork",
    "--kill-child",
    "--mount",
    "--mount-proc",
    "--",
    ...(join.throughParent
      ? [tools.unshare, "--user", `--map-user=${join.uid}`, `--map-group=${join.gid}`, "--"]
      : []),
    tools.setpriv,
    "--no-new-privs",
    "--inh-caps=-all",
    `--bounding-set=-all${held.keepsSetfcap ? ",+setfcap" : ""}`,
    "--",
    held.applySeccomp,
    launch.file,
    ...launch.args,
  ];
  return { file: tools.nsenter, args, env: enteredEnvironment(launch, options) };
}
