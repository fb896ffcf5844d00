/**
 * A sandbox held for a run and one kind of process (docs/sandbox.md#held-sandbox): the
 * library wraps one holder, a process that waits inside bubblewrap's namespaces (the mounts
 * of the kind's policy, no network but the proxy's relays) until closer lets it go. Every
 * process of every query or check of that kind then joins those namespaces
 * (`src/sandbox/entered-launch.ts`) instead of building a sandbox of its own.
 */
import { closeSync, openSync, readlinkSync } from "node:fs";
import { readdir, readFile, readlink } from "node:fs/promises";
import { basename } from "node:path";
import { type HeldProcess, startHeldProcess } from "../process/held-process.js";
import type { SandboxTools } from "./sandbox-tools.js";
import { SANDBOXED_COMMAND_VARIABLE } from "./sandboxed-launch.js";

/**
 * What the holder runs under the library's wrap: it writes the environment the library gave
 * it, NUL-separated and closed by an empty entry, then waits until closer ends it (or
 * bubblewrap does, when closer ends); where it cannot write it, it ends at once. Its stdin is
 * not a pipe: with a socket on stdin the library's wait for its relays takes its whole 0.3 s.
 */
const HOLDER_LINE = "cat /proc/self/environ && printf '\\0\\0' && exec sleep 2147483647";

/** How long the holder may take to be up: the library's relays wait 0.3 s at most. */
const START_TIMEOUT_MS = 30_000;

/** Variables a shell makes on its own, which the library did not give. */
const SHELL_MADE = new Set(["PWD", "OLDPWD", "SHLVL", "_"]);

export interface HeldSandbox {
  /**
   * The held namespaces, as paths to closer's own handles of them: a process joins them by
   * these, never by the holder's process id, which the machine could give another process
   * once the holder ended. The namespaces live as long as closer holds them.
   */
  readonly namespaces: Readonly<Record<NamespaceKind, string>>;
  /** The library's seccomp helper, which every process runs under (its user namespace, its filter). */
  readonly applySeccomp: string;
  /**
   * The variables the library gives a process of this sandbox (its proxy, its monitor's socket),
   * written for the holder's attribution key; `attributionKey` says which that is.
   */
  readonly env: Readonly<Record<string, string>>;
  /** The variables the library takes away from every process (closer's GitHub tokens). */
  readonly unset: readonly string[];
  readonly attributionKey: string;
  /** Whether the library's processes keep CAP_SETFCAP in their bounding set (root's, to map uid 0). */
  readonly keepsSetfcap: boolean;
  readonly tools: SandboxTools;
  /**
   * The folder a check in this sandbox writes its toolchains' caches to, writable here alone,
   * emptied before the next check takes the sandbox (docs/sandbox.md#caches); none for queries.
   */
  readonly cacheFolder?: string;
  /** Whether the holder still runs: a sandbox whose holder ended is made again. */
  alive(): boolean;
  /** Lets the holder go: its namespaces end with it, and any process still in them. */
  end(): Promise<void>;
}

export interface HoldOptions {
  /** The library's wrap of the trampoline (`sandboxedLaunch`'s), for this kind's policy. */
  readonly argv: readonly string[];
  /** The attribution key the wrap was made for: base64 of its command id. */
  readonly attributionKey: string;
  readonly cwd: string;
  readonly tools: SandboxTools;
}

/** Starts the holder of a wrap and reads what its processes need from it. */
export async function holdSandbox(options: HoldOptions): Promise<HeldSandbox> {
  const [file, ...args] = options.argv;
  if (file === undefined) throw new Error("the sandbox returned an empty command");
  const holder = startHeldProcess({
    file,
    args,
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", [SANDBOXED_COMMAND_VARIABLE]: HOLDER_LINE },
  });
  let handles: Record<NamespaceKind, number> | undefined;
  let running = true;
  void holder.ended.then(() => {
    running = false;
  });
  const end = async () => {
    await holder.end();
    for (const fd of Object.values(handles ?? {})) closeSync(fd);
    handles = undefined;
  };
  try {
    const given = await holderEnvironment(holder);
    const pid = holder.pid ?? 0;
    const inside = await firstInside(pid);
    const helper = await seccompHelper(pid);
    handles = await holdNamespaces(inside);
    const held = handles;
    return {
      namespaces: namespacePaths(held),
      applySeccomp: await readlink(`/proc/${helper}/exe`),
      env: { ...variablesWritten(given), ...helperVariables(options) },
      unset: unsetVariables(options.argv),
      attributionKey: options.attributionKey,
      keepsSetfcap: await keepsSetfcap(helper),
      tools: options.tools,
      alive: () => running && handles !== undefined && stillInside(inside, handles.pid),
      end,
    };
  } catch (error) {
    await end();
    throw error;
  }
}

/** What the holder wrote of its environment, once it is up. */
function holderEnvironment(holder: HeldProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let said = "";
    let written = "";
    const timer = setTimeout(() => fail("it did not start in 30 s"), START_TIMEOUT_MS);
    const fail = (why: string) => {
      clearTimeout(timer);
      const stderr = said.trim().split("\n").slice(-3).join(" ");
      reject(
        new Error(`the held sandbox did not start: ${why}${stderr === "" ? "" : `: ${stderr}`}`),
      );
    };
    holder.stderr.on("data", (chunk: Buffer) => {
      said = (said + chunk.toString("utf8")).slice(-2000);
    });
    holder.stdout.on("data", (chunk: Buffer) => {
      written += chunk.toString("utf8");
      const end = written.indexOf("\0\0");
      if (end < 0) return;
      clearTimeout(timer);
      resolve(written.slice(0, end));
    });
    void holder.ended.then((how) => fail(`it ended (${how})`));
  });
}

export type NamespaceKind = "user" | "mnt" | "net" | "pid";

const NAMESPACE_KINDS: readonly NamespaceKind[] = ["user", "mnt", "net", "pid"];

/** Opens closer's own handle of each namespace of `pid`, checked to be the one `pid` is in. */
async function holdNamespaces(pid: number): Promise<Record<NamespaceKind, number>> {
  const handles: Partial<Record<NamespaceKind, number>> = {};
  try {
    for (const kind of NAMESPACE_KINDS) {
      const seen = await readlink(`/proc/${pid}/ns/${kind}`);
      const fd = openSync(`/proc/${pid}/ns/${kind}`, "r");
      handles[kind] = fd;
      if ((await readlink(`/proc/self/fd/${fd}`)) !== seen) {
        throw new Error("the held sandbox's holder ended while its namespaces were taken");
      }
    }
    return handles as Record<NamespaceKind, number>;
  } catch (error) {
    for (const fd of Object.values(handles)) closeSync(fd);
    throw error;
  }
}

/**
 * Whether bubblewrap's first process still runs in the held process namespace: read at once,
 * so a holder killed a moment ago is seen as gone before closer hears of its end.
 */
function stillInside(pid: number, handle: number): boolean {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`) === readlinkSync(`/proc/self/fd/${handle}`);
  } catch {
    return false;
  }
}

function namespacePaths(handles: Record<NamespaceKind, number>): Record<NamespaceKind, string> {
  const paths = {} as Record<NamespaceKind, string>;
  for (const kind of NAMESPACE_KINDS) paths[kind] = `/proc/${process.pid}/fd/${handles[kind]}`;
  return paths;
}

/** The processes below `pid`, nearest first. */
async function descendants(pid: number): Promise<number[]> {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift() as number;
    for (const task of await readdir(`/proc/${parent}/task`).catch(() => [])) {
      const children = await readFile(`/proc/${parent}/task/${task}/children`, "utf8").catch(
        () => "",
      );
      for (const child of children.split(" ").filter(Boolean).map(Number)) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** bubblewrap's first process in the namespaces it made: the nearest below with a user namespace not ours. */
async function firstInside(pid: number): Promise<number> {
  const ours = await readlink("/proc/self/ns/user");
  for (const child of await descendants(pid)) {
    const namespace = await readlink(`/proc/${child}/ns/user`).catch(() => ours);
    if (namespace !== ours) return child;
  }
  throw new Error("the held sandbox has no process in namespaces of its own");
}

/** The library's seccomp helper the holder runs under: the nearest such process. */
async function seccompHelper(pid: number): Promise<number> {
  for (const child of await descendants(pid)) {
    const exe = await readlink(`/proc/${child}/exe`).catch(() => "");
    if (basename(exe) === "apply-seccomp") return child;
  }
  throw new Error(
    "the sandbox library ran no seccomp helper (apply-seccomp): its filter would be missing",
  );
}

/** The holder's environment, less what closer gave it and what its shell made. */
function variablesWritten(written: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of written.split("\0")) {
    const equals = entry.indexOf("=");
    if (equals <= 0) continue;
    const name = entry.slice(0, equals);
    if (name === "PATH" || name === SANDBOXED_COMMAND_VARIABLE || SHELL_MADE.has(name)) continue;
    env[name] = entry.slice(equals + 1);
  }
  return env;
}

/**
 * What the seccomp helper reads and takes away before the program runs, so the holder could
 * not write it: whether a nested user namespace is allowed, the monitor's socket, and the
 * attribution key. Read from the wrap, where they are plain words.
 */
function helperVariables(options: HoldOptions): Record<string, string> {
  const line = options.argv.join(" ");
  const nested = /SRT_ALLOW_NESTED_USERNS=([01]) /.exec(line)?.[1];
  const socket = /--setenv SRT_OBSERVE_SOCK (\/[^\s'"\\]+) /.exec(line)?.[1];
  return {
    ...(nested === undefined ? {} : { SRT_ALLOW_NESTED_USERNS: nested }),
    ...(socket === undefined
      ? {}
      : { SRT_OBSERVE_SOCK: socket, SRT_ENCODED_CMD: options.attributionKey }),
  };
}

/** CAP_SETFCAP's bit in a capability set. */
const CAP_SETFCAP = 31n;

async function keepsSetfcap(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const bounding = /^CapBnd:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  return bounding !== undefined && ((BigInt(`0x${bounding}`) >> CAP_SETFCAP) & 1n) === 1n;
}

/** The names the wrap's bubblewrap takes away (`--unsetenv NAME`): plain names, never quoted. */
export function unsetVariables(argv: readonly string[]): string[] {
  const names = new Set<string>();
  for (const match of argv.join(" ").matchAll(/--unsetenv ([A-Za-z_][A-Za-z0-9_]*)/g)) {
    if (match[1] !== undefined) names.add(match[1]);
  }
  return [...names];
}
