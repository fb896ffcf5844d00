/**
 * A run's OS sandbox (docs/sandbox.md): decided once when the run starts
 * (`auto`, `on`, `off`), wrapped once per kind of process, and asked after
 * each query and each validator for what it refused.
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CloserError } from "../errors.js";
import type { SandboxEntry, SandboxPort } from "../ports/loop-ports.js";
import { PROCESS_KINDS, type ProcessKind } from "../ports/process.js";
import type { SandboxConfig } from "../ports/runner-config.js";
import { makeHeldPlaces, removeMadePlaces } from "./held-places.js";
import { type RefusalWatch, watchRefusedConnections } from "./refusal-watch.js";
import { isRefusal, type RefusalJudge } from "./refusals.js";
import {
  isLoopbackHost,
  type KindPolicy,
  placesToMake,
  type SandboxPlace,
  type SandboxPolicy,
  sandboxPolicyFor,
} from "./sandbox-policy.js";
import { PROCESS_SANDBOX, type SandboxManager } from "./sandbox-runtime.js";
import { makeSandboxedLaunch, TRAMPOLINE } from "./sandboxed-launch.js";
import {
  cacheVariables,
  makeCacheFolder,
  removeCacheFolder,
  type UserToolchain,
} from "./tool-caches.js";

/** A run's sandbox while it is on. */
export interface RunSandbox extends SandboxPort {
  readonly policy: SandboxPolicy;
  /** The run's own folder outside the tree: the processes' TMPDIR, and the default decision file. */
  readonly scratchDir: string;
  /** Ends the sandbox of the run: its temp folder; the last run stops the sandbox. */
  release(): Promise<void>;
}

/** The sandbox a run works in, or why it works without one. */
export type SandboxState =
  | { readonly on: true; readonly sandbox: RunSandbox }
  | { readonly on: false; readonly reason: string; readonly warning?: string };

/** A run whose agent.json or `--sandbox` turns the OS sandbox off. */
export const SANDBOX_OFF: SandboxState = {
  on: false,
  reason: "off (runner.sandbox.mode or --sandbox)",
};

export interface PrepareSandboxOptions {
  readonly config: SandboxConfig;
  readonly runId: string;
  /** Where the run works; the scratch folder and the caches' folders are made here. */
  readonly place: Omit<SandboxPlace, "scratchDir" | "caches">;
  /** agent.json, named in a refusal to start. */
  readonly agentFile: string;
}

/** The run's sandbox by its mode: on, off, or off with a warning where `auto` found it cannot work. */
export async function prepareRunSandbox(options: PrepareSandboxOptions): Promise<SandboxState> {
  const { mode } = options.config;
  if (mode === "off") return SANDBOX_OFF;
  PROCESS_SANDBOX.hold();
  let started: RunSandbox | undefined;
  try {
    const support = await PROCESS_SANDBOX.support();
    if (!support.works) return refuseOrWarn(options, support);
    started = await startRunSandbox(support.manager, options);
    return { on: true, sandbox: started };
  } finally {
    if (started === undefined) await PROCESS_SANDBOX.release();
  }
}

function refuseOrWarn(
  options: PrepareSandboxOptions,
  support: { readonly reason: string; readonly fix: string },
): SandboxState {
  if (options.config.mode === "on") {
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

async function startRunSandbox(
  manager: SandboxManager,
  options: PrepareSandboxOptions,
): Promise<RunSandbox> {
  // Neutral names: what the checks see of them says nothing of closer (docs/integrity.md#toolchain).
  const scratchDir = await mkdtemp(join(tmpdir(), "tmp-"));
  const cachesDir = await mkdtemp(join(tmpdir(), "tmp-"));
  const caches = { model: join(cachesDir, "a"), checks: join(cachesDir, "b") };
  const user: UserToolchain = { home: options.place.home, env: options.place.backendEnv };
  await makeCacheFolder(caches.model, user);
  await mkdir(caches.checks);
  const place = { ...options.place, scratchDir, caches };
  const policy = sandboxPolicyFor(place);
  const made = await makeHeldPlaces(placesToMake(place, policy));
  const reported = new Map<string, string[]>();
  const watches = new Map<string, RefusalWatch>();
  const unsubscribe = manager.onRefusal((command, line) => {
    reported.get(command)?.push(line);
    watches.get(command)?.see(line);
  });
  const removeFolders = async () => {
    await rm(scratchDir, { recursive: true, force: true });
    await removeCacheFolder(cachesDir);
    await removeMadePlaces(made, options.place.git?.commonDir);
  };
  try {
    await assertHosts(manager, policy, options.agentFile);
  } catch (error) {
    unsubscribe();
    await removeFolders();
    throw error;
  }
  const alwaysWritable = [...manager.defaultWritePaths, "/dev", "/proc"];
  const run: RunSandboxContext = {
    manager,
    options,
    scratchDir,
    caches,
    user,
    reported,
    watches,
    made,
    refused: { backend: [], validators: [] },
    judgeOf: (rules, unheld) => ({
      allowWrite: [...rules.allowWrite, ...alwaysWritable],
      denyWrite: [...rules.denyWrite, ...unheld],
      ignoredPaths: policy.ignored.paths,
      ignoredHosts: policy.ignored.hosts,
    }),
  };
  let entries = 0;
  return {
    policy,
    scratchDir,
    enter: (kind) => enterSandbox(run, kind, ++entries),
    async takeRefusals(kind) {
      return run.refused[kind].splice(0);
    },
    async release() {
      unsubscribe();
      await removeFolders();
      await PROCESS_SANDBOX.release();
    },
  };
}

/** What every entry of one run's sandbox shares. */
interface RunSandboxContext {
  readonly manager: SandboxManager;
  readonly options: PrepareSandboxOptions;
  readonly scratchDir: string;
  /** The toolchains' caches: the model's folder, and the folder of each check's own. */
  readonly caches: { readonly model: string; readonly checks: string };
  /** Where the user's toolchains keep what the caches are seeded from. */
  readonly user: UserToolchain;
  /** What the library reported, by the label of the entry it came from. */
  readonly reported: Map<string, string[]>;
  /** The watch of each entry's refused connections, by its label (docs/sandbox.md#refused-connection). */
  readonly watches: Map<string, RefusalWatch>;
  /** The read-only places closer made where they were missing, removed when the run ends where safe. */
  readonly made: string[];
  /** What was refused and counts, by kind, until the loop takes it. */
  readonly refused: Record<ProcessKind, string[]>;
  readonly judgeOf: (rules: KindPolicy, unheld: readonly string[]) => RefusalJudge;
}

/**
 * One query's or one check's stay in the sandbox: the kind's policy read afresh (another run
 * of a batch may have made or deleted a branch since, and the sandbox cannot hold a ref that
 * is gone), wrapped with a network allow list of its own; leaving judges what was refused.
 */
async function enterSandbox(
  run: RunSandboxContext,
  kind: ProcessKind,
  entry: number,
): Promise<SandboxEntry> {
  const { manager, options, scratchDir, caches } = run;
  const place = { ...options.place, scratchDir, caches };
  const policy = sandboxPolicyFor(place);
  run.made.push(...(await makeHeldPlaces(placesToMake(place, policy))));
  // Each check's caches are its own, empty when it starts and gone when it ends (docs/sandbox.md#caches).
  const cacheFolder = kind === "backend" ? caches.model : join(caches.checks, String(entry));
  if (kind === "validators") await makeCacheFolder(cacheFolder, run.user);
  const rules: KindPolicy =
    kind === "backend"
      ? policy.backend
      : { ...policy.validators, allowWrite: [...policy.validators.allowWrite, cacheFolder] };
  const commandId = randomBytes(16).toString("base64url");
  const label = `closer ${options.runId} ${kind} ${entry}`;
  run.reported.set(label, []);
  const watch = watchRefusedConnections(kind, run.judgeOf(rules, policy.unheld));
  run.watches.set(label, watch);
  const forget = async () => {
    manager.unregisterHosts(commandId);
    run.reported.delete(label);
    run.watches.delete(label);
    if (kind === "validators") await removeCacheFolder(cacheFolder);
  };
  const leave = async () => {
    await manager.refusalsDelivered();
    manager.cleanupAfterCommand();
    const lines = run.reported.get(label) ?? [];
    await forget();
    const judge = run.judgeOf(rules, policy.unheld);
    run.refused[kind].push(...lines.filter((line) => isRefusal(line, judge)));
  };
  try {
    await registerHosts(manager, commandId, {
      hosts: rules.hosts,
      kind,
      agentFile: options.agentFile,
    });
    const argv = await manager.wrap(
      TRAMPOLINE,
      {
        filesystem: filesystemOf(rules),
        // The environment policy's second layer (docs/sandbox.md#policy).
        credentials: {
          envVars: rules.deniedVariables.map((name) => ({ name, mode: "deny" as const })),
        },
      },
      { cwd: options.place.tree, commandId, commandText: label },
    );
    const clearNoProxy = rules.hosts.some(isLoopbackHost);
    const launch = makeSandboxedLaunch(
      { argv },
      {
        tmpDir: scratchDir,
        clearNoProxy,
        defaults: cacheVariables(kind, cacheFolder, run.user),
      },
    );
    return { wrapper: launch, tempDir: scratchDir, leave, refused: watch.signal };
  } catch (error) {
    await forget();
    throw error;
  }
}

/** A host the library cannot read is the agent's mistake: said before the first query. */
async function assertHosts(
  manager: SandboxManager,
  policy: SandboxPolicy,
  agentFile: string,
): Promise<void> {
  for (const kind of PROCESS_KINDS) {
    const probeId = randomBytes(16).toString("base64url");
    await registerHosts(manager, probeId, { hosts: policy[kind].hosts, kind, agentFile });
    manager.unregisterHosts(probeId);
  }
}

function filesystemOf(rules: KindPolicy) {
  return {
    allowWrite: [...rules.allowWrite],
    denyWrite: [...rules.denyWrite],
    denyRead: [...rules.denyRead],
  };
}

async function registerHosts(
  manager: SandboxManager,
  commandId: string,
  { hosts, kind, agentFile }: { hosts: readonly string[]; kind: ProcessKind; agentFile: string },
): Promise<void> {
  try {
    await manager.registerHosts(commandId, hosts);
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
