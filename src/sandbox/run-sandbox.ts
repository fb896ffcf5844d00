/**
 * A run's OS sandbox (docs/sandbox.md): decided once when the run starts
 * (`auto`, `on`, `off`), wrapped once per kind of process, and asked after
 * each query and each validator for what it refused.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CloserError } from "../errors.js";
import type { SandboxEntry, SandboxPort } from "../ports/loop-ports.js";
import { PROCESS_KINDS, type ProcessKind } from "../ports/process.js";
import type { SandboxConfig } from "../ports/runner-config.js";
import { makeHeldPlaces, removeMadePlaces } from "./held-places.js";
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
import { hideStandIns, readUserExcludes, standInsIn } from "./stand-ins.js";

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
  /** Where the run works; the scratch folder is made here. */
  readonly place: Omit<SandboxPlace, "scratchDir">;
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
  // A neutral name: what the checks see of it says nothing of closer (docs/integrity.md#toolchain).
  const scratchDir = await mkdtemp(join(tmpdir(), "tmp-"));
  const place = { ...options.place, scratchDir };
  const policy = sandboxPolicyFor(place);
  const made = await makeHeldPlaces(placesToMake(place, policy));
  const reported = new Map<string, string[]>();
  const unsubscribe = subscribeToRefusals(manager, reported);
  try {
    assertHosts(manager, policy, options.agentFile);
  } catch (error) {
    unsubscribe();
    await rm(scratchDir, { recursive: true, force: true });
    await removeMadePlaces(made, options.place.git?.commonDir);
    throw error;
  }
  const alwaysWritable = [...PROCESS_SANDBOX.defaultWritePaths(), "/dev", "/proc"];
  const run: RunSandboxContext = {
    manager,
    options,
    scratchDir,
    userExcludes: await readUserExcludes(options.place.tree),
    reported,
    made,
    refused: { backend: [], validators: [] },
    judgeOf: (rules) => ({
      allowWrite: [...rules.allowWrite, ...alwaysWritable],
      denyWrite: rules.denyWrite,
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
      await rm(scratchDir, { recursive: true, force: true });
      await removeMadePlaces(made, options.place.git?.commonDir);
      await PROCESS_SANDBOX.release();
    },
  };
}

/** What every entry of one run's sandbox shares. */
interface RunSandboxContext {
  readonly manager: SandboxManager;
  readonly options: PrepareSandboxOptions;
  readonly scratchDir: string;
  /** The user's global git excludes, kept in the excludes file that hides the stand-ins. */
  readonly userExcludes: string;
  /** What the library reported, by the label of the entry it came from. */
  readonly reported: Map<string, string[]>;
  /** The read-only places closer made where they were missing, removed when the run ends where safe. */
  readonly made: string[];
  /** What was refused and counts, by kind, until the loop takes it. */
  readonly refused: Record<ProcessKind, string[]>;
  readonly judgeOf: (rules: KindPolicy) => RefusalJudge;
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
  const { manager, options, scratchDir } = run;
  const place = { ...options.place, scratchDir };
  const policy = sandboxPolicyFor(place);
  run.made.push(...(await makeHeldPlaces(placesToMake(place, policy))));
  const rules = policy[kind];
  const commandId = randomBytes(16).toString("base64url");
  const label = `closer ${options.runId} ${kind} ${entry}`;
  run.reported.set(label, []);
  registerHosts(manager, commandId, { hosts: rules.hosts, kind, agentFile: options.agentFile });
  const leave = async () => {
    await reportsDelivered();
    manager.unregisterCommandNetworkLists(commandId);
    manager.cleanupAfterCommand();
    const lines = run.reported.get(label) ?? [];
    run.reported.delete(label);
    run.refused[kind].push(...lines.filter((line) => isRefusal(line, run.judgeOf(rules))));
  };
  try {
    const wrapped = await manager.wrapWithSandboxArgv(
      TRAMPOLINE,
      undefined,
      {
        filesystem: filesystemOf(rules),
        // The environment policy's second layer (docs/sandbox.md#policy).
        credentials: {
          envVars: rules.deniedVariables.map((name) => ({ name, mode: "deny" as const })),
        },
      },
      undefined,
      options.place.tree,
      { commandId, commandText: label },
    );
    const clearNoProxy = rules.hosts.some(isLoopbackHost);
    const env = await hideStandIns(standInsIn(options.place.tree), {
      userExcludes: run.userExcludes,
      file: join(scratchDir, `.git-excludes-${entry}`),
    });
    const launch = makeSandboxedLaunch(wrapped, { tmpDir: scratchDir, clearNoProxy, env });
    return { wrapper: launch, tempDir: scratchDir, leave };
  } catch (error) {
    manager.unregisterCommandNetworkLists(commandId);
    run.reported.delete(label);
    throw error;
  }
}

/** A host the library cannot read is the agent's mistake: said before the first query. */
function assertHosts(manager: SandboxManager, policy: SandboxPolicy, agentFile: string): void {
  for (const kind of PROCESS_KINDS) {
    const probeId = randomBytes(16).toString("base64url");
    registerHosts(manager, probeId, { hosts: policy[kind].hosts, kind, agentFile });
    manager.unregisterCommandNetworkLists(probeId);
  }
}

function filesystemOf(rules: KindPolicy) {
  return {
    allowWrite: [...rules.allowWrite],
    denyWrite: [...rules.denyWrite],
    denyRead: [...rules.denyRead],
  };
}

function registerHosts(
  manager: SandboxManager,
  commandId: string,
  { hosts, kind, agentFile }: { hosts: readonly string[]; kind: ProcessKind; agentFile: string },
): void {
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
