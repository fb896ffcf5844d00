/**
 * A run's OS sandbox (docs/sandbox.md): decided once when the run starts
 * (`auto`, `on`, `off`), wrapped once per kind of process, and asked after
 * each query and each validator for what it refused.
 */
import { randomBytes } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type { SandboxConfig } from "../definition/types.js";
import { CloserError } from "../errors.js";
import { PROCESS_KINDS, type ProcessKind } from "../process/child-environment.js";
import type { LaunchWrapper } from "../process/launch.js";
import {
  isLoopbackHost,
  type KindPolicy,
  type SandboxPlace,
  type SandboxPolicy,
  sandboxPolicyFor,
} from "./sandbox-policy.js";
import { getDefaultWritePaths, type SandboxManager, sandboxSupport } from "./sandbox-runtime.js";
import { makeSandboxedLaunch, TRAMPOLINE } from "./sandboxed-launch.js";

/** A run's sandbox while it is on. */
export interface RunSandbox {
  readonly policy: SandboxPolicy;
  /** The run's own folder outside the tree: the processes' TMPDIR, and the default decision file. */
  readonly scratchDir: string;
  /** Starts a process of each kind inside the sandbox. */
  readonly wrappers: Readonly<Record<ProcessKind, LaunchWrapper>>;
  /** What the sandbox refused a kind's processes since the last call, one line each. */
  takeRefusals(kind: ProcessKind): Promise<string[]>;
  /** Ends the sandbox of the run: its network lists, its temp folder. */
  release(): Promise<void>;
}

/** The sandbox a run works in, or why it works without one. */
export type SandboxState =
  | { readonly on: true; readonly sandbox: RunSandbox }
  | { readonly on: false; readonly reason: string; readonly warning?: string };

export interface PrepareSandboxOptions {
  readonly config: SandboxConfig;
  readonly runId: string;
  /** Where the run works; the scratch folder is made here. */
  readonly place: Omit<SandboxPlace, "scratchDir">;
  /** agent.json, named in a refusal to start. */
  readonly agentFile: string;
}

/** Runs that hold a sandbox in this process: the library's mount points are cleaned once none does. */
let liveRuns = 0;

/** The run's sandbox by its mode: on, off, or off with a warning where `auto` found it cannot work. */
export async function prepareRunSandbox(options: PrepareSandboxOptions): Promise<SandboxState> {
  const { mode } = options.config;
  if (mode === "off") return { on: false, reason: "off (runner.sandbox.mode or --sandbox)" };
  const support = await sandboxSupport();
  if (!support.works) {
    if (mode === "on") {
      throw new CloserError("config_error", `the OS sandbox cannot run here: ${support.reason}`, {
        file: options.agentFile,
        jsonPath: "runner.sandbox.mode",
        found: "on",
        fix: support.fix,
      });
    }
    return {
      on: false,
      reason: support.reason,
      warning: `the OS sandbox is off: ${support.reason}; to have it: ${support.fix}`,
    };
  }
  return { on: true, sandbox: await startRunSandbox(support.manager, options) };
}

async function startRunSandbox(
  manager: SandboxManager,
  options: PrepareSandboxOptions,
): Promise<RunSandbox> {
  const scratchDir = await mkdtemp(join(tmpdir(), `closer-${options.runId}-`));
  const policy = sandboxPolicyFor({ ...options.place, scratchDir });
  const alwaysWritable = [...getDefaultWritePaths(), "/dev", "/proc"];
  const refusals = new Map<string, string[]>();
  const labels = {} as Record<ProcessKind, string>;
  const ids: string[] = [];
  liveRuns += 1;
  const unsubscribe = subscribeToRefusals(manager, refusals);
  const release = async () => {
    for (const id of ids) manager.unregisterCommandNetworkLists(id);
    unsubscribe();
    liveRuns -= 1;
    if (liveRuns === 0) manager.cleanupAfterCommand();
    await rm(scratchDir, { recursive: true, force: true });
  };
  try {
    const wrappers = {} as Record<ProcessKind, LaunchWrapper>;
    await fromFolder(scratchDir, async () => {
      for (const kind of PROCESS_KINDS) {
        const rules = policy[kind];
        const commandId = randomBytes(16).toString("base64url");
        labels[kind] = `closer ${options.runId} ${kind}`;
        refusals.set(labels[kind], []);
        registerHosts(manager, commandId, {
          hosts: rules.hosts,
          kind,
          agentFile: options.agentFile,
        });
        ids.push(commandId);
        const wrapped = await manager.wrapWithSandboxArgv(
          TRAMPOLINE,
          undefined,
          {
            filesystem: {
              allowWrite: [...rules.allowWrite],
              denyWrite: [...rules.denyWrite],
              denyRead: [...rules.denyRead],
            },
          },
          undefined,
          options.place.tree,
          { commandId, commandText: labels[kind] },
        );
        wrappers[kind] = makeSandboxedLaunch(wrapped, {
          tmpDir: scratchDir,
          clearNoProxy: rules.hosts.some(isLoopbackHost),
        });
      }
    });
    return {
      policy,
      scratchDir,
      wrappers,
      async takeRefusals(kind) {
        await reportsDelivered();
        const taken = refusals.get(labels[kind]) ?? [];
        refusals.set(labels[kind], []);
        return taken.filter((line) => isRefusal(line, policy[kind], alwaysWritable));
      },
      release,
    };
  } catch (error) {
    await release();
    throw error;
  }
}

/** The wraps of this process, one run's at a time: each changes the working directory while it lasts. */
let wrapping: Promise<unknown> = Promise.resolve();

/**
 * Runs `wrap` with `folder` as the process's working directory. The library
 * keeps shell and git dotfiles (`.bashrc`, `.gitconfig`, `.mcp.json`,
 * `.vscode/`, …) of the working directory read-only and holds each missing
 * one with an empty file it makes on the host: made in the tree when closer
 * runs from it, they would leave the tree dirty and fail the model's
 * `git add`. From the run's scratch folder they land there; the tree's git
 * files are the policy's own.
 */
async function fromFolder<T>(folder: string, wrap: () => Promise<T>): Promise<T> {
  const turn = wrapping.then(async () => {
    const cwd = process.cwd();
    process.chdir(folder);
    try {
      return await wrap();
    } finally {
      process.chdir(cwd);
    }
  });
  wrapping = turn.catch(() => undefined);
  return turn;
}

function registerHosts(
  manager: SandboxManager,
  commandId: string,
  allowed: {
    readonly hosts: readonly string[];
    readonly kind: ProcessKind;
    readonly agentFile: string;
  },
): void {
  const { hosts, kind, agentFile } = allowed;
  try {
    manager.registerCommandNetworkLists(commandId, { allowedDomains: [...hosts] });
  } catch (error) {
    const field = kind === "backend" ? "allowedDomains" : "validatorDomains";
    throw new CloserError("config_error", `a host the sandbox cannot allow: ${String(error)}`, {
      file: agentFile,
      jsonPath: `runner.sandbox.${field}`,
      found: hosts.join(", "),
      fix: "write each host as example.com, *.example.com or 127.0.0.1, with an optional :port",
    });
  }
}

/**
 * The sandbox reports a refused write over a socket as it happens, before the process goes on;
 * two turns of the event loop let what is already sent be read.
 */
async function reportsDelivered(): Promise<void> {
  for (let turn = 0; turn < 2; turn += 1) await new Promise((done) => setImmediate(done));
}

/** Routes every refusal the library records to the run and kind it was made for. */
function subscribeToRefusals(manager: SandboxManager, refusals: Map<string, string[]>) {
  const store = manager.getSandboxViolationStore();
  let seen = store.getTotalCount();
  return store.subscribe((violations) => {
    const total = store.getTotalCount();
    const count = Math.min(total - seen, violations.length);
    seen = total;
    if (count <= 0) return;
    for (const violation of violations.slice(-count)) {
      if (violation.command === undefined) continue;
      refusals.get(violation.command)?.push(violation.line);
    }
  });
}

/**
 * Whether a reported write was refused by the kind's policy. The library's
 * monitor reports every write it sees against the process-wide
 * configuration, not the run's, so each write is judged here: refused when
 * it is outside every writable place, or inside a read-only one. A refused
 * connection always counts; `mkdir -p` of a folder that is already there
 * changes nothing.
 */
export function isRefusal(
  line: string,
  rules: Pick<KindPolicy, "allowWrite" | "denyWrite">,
  alwaysWritable: readonly string[],
): boolean {
  const write = /^deny (\S+) (\/.*)$/.exec(line);
  if (write === null) return true;
  const [, operation = "", path = ""] = write;
  if (operation === "mkdir" && existsSync(path)) return false;
  const denied = withRealPaths(rules.denyWrite);
  const writable = withRealPaths([...rules.allowWrite, ...alwaysWritable]);
  // A write through a symlink lands where the link points, which the report does not name.
  const landing = FOLLOWS_LINK.test(operation) ? realPathOf(path) : realFolderOf(path);
  return [path, landing].some(
    (written) =>
      denied.some((place) => isInside(written, place)) ||
      !writable.some((place) => isInside(written, place)),
  );
}

/** The places, and each as its real path where a symlink leads to it. */
function withRealPaths(places: readonly string[]): string[] {
  return [...new Set([...places, ...places.map(realPathOf)])];
}

/** Calls that act on what a symlink at the path points to; the others act on the link itself. */
const FOLLOWS_LINK = /^(open|openat2?|creat|truncate|chmod|fchmodat2?|fchownat|utimes?|utimensat)$/;

/** The path with its symlinks resolved, as far as it exists. */
function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return realFolderOf(path);
  }
}

/** The path with its folder's symlinks resolved. */
function realFolderOf(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

function isInside(path: string, place: string): boolean {
  return path === place || path.startsWith(place.endsWith("/") ? place : `${place}/`);
}
