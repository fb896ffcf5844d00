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
import type { SandboxPort } from "../ports/loop-ports.js";
import { PROCESS_KINDS, type ProcessKind } from "../ports/process.js";
import { registerHosts } from "./entry-attribution.js";
import type { HeldSupport } from "./held-join.js";
import { makeHeldPlaces, removeMadePlaces } from "./held-places.js";
import { type HeldSandbox, holdSandbox } from "./held-sandbox.js";
import { HeldSandboxes } from "./held-sandboxes.js";
import type { RefusalWatch } from "./refusal-watch.js";
import {
  attributionKeyOf,
  enterSandbox,
  type PrepareSandboxOptions,
  type RunSandboxContext,
  withWrite,
  wrapConfig,
} from "./sandbox-entry.js";
import {
  type KindPolicy,
  placesToMake,
  type SandboxPolicy,
  sandboxPolicyFor,
} from "./sandbox-policy.js";
import { PROCESS_SANDBOX, type SandboxManager } from "./sandbox-runtime.js";
import { TRAMPOLINE } from "./sandboxed-launch.js";
import { makeCacheFolder, removeCacheFolder, type UserToolchain } from "./tool-caches.js";

export type { PrepareSandboxOptions } from "./sandbox-entry.js";

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

/** The run's sandbox by its mode: on, off, or off with a warning where `auto` found it cannot work. */
export async function prepareRunSandbox(options: PrepareSandboxOptions): Promise<SandboxState> {
  const { mode } = options.config;
  if (mode === "off") return SANDBOX_OFF;
  PROCESS_SANDBOX.hold();
  let started: RunSandbox | undefined;
  try {
    const support = await PROCESS_SANDBOX.support();
    if (!support.works) return refuseOrWarn(options, support);
    started = await startRunSandbox(support.manager, support.held, options);
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
  heldSupport: HeldSupport,
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
    ...(heldSupport.joins
      ? {
          held: {
            sandboxes: holdKinds(
              { manager, options, support: heldSupport, checksCaches: caches.checks, user },
              policy,
            ),
            join: heldSupport.join,
          },
        }
      : {}),
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
      await run.held?.sandboxes.end();
      await removeFolders();
      await PROCESS_SANDBOX.release();
    },
  };
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

/** What starting a run's held sandbox takes. */
interface HoldContext {
  readonly manager: SandboxManager;
  readonly options: PrepareSandboxOptions;
  readonly support: Extract<HeldSupport, { joins: true }>;
  /** The folder the checks' sandboxes keep their caches folders in, one each. */
  readonly checksCaches: string;
  readonly user: UserToolchain;
}

/**
 * The run's held sandboxes (docs/sandbox.md#held-sandbox), one of each kind started at once,
 * beside the first query rather than before it.
 */
function holdKinds(context: HoldContext, policy: SandboxPolicy): HeldSandboxes {
  let made = 0;
  const sandboxes = new HeldSandboxes((kind, rules) => startHeld(context, kind, rules, ++made));
  for (const kind of PROCESS_KINDS) void sandboxes.prepare(kind, policy[kind]);
  return sandboxes;
}

async function startHeld(
  context: HoldContext,
  kind: ProcessKind,
  rules: KindPolicy,
  number: number,
): Promise<HeldSandbox> {
  const { manager, options, support } = context;
  // A check's caches folder is its sandbox's own: no other sandbox may write it.
  const cacheFolder =
    kind === "validators" ? join(context.checksCaches, String(number)) : undefined;
  if (cacheFolder !== undefined) await makeCacheFolder(cacheFolder, context.user);
  const dropCaches = async () => {
    if (cacheFolder !== undefined) await removeCacheFolder(cacheFolder);
  };
  const commandId = randomBytes(16).toString("base64url");
  try {
    const argv = await manager.wrap(
      TRAMPOLINE,
      wrapConfig(cacheFolder === undefined ? rules : withWrite(rules, cacheFolder)),
      { cwd: options.place.tree, commandId, commandText: `closer ${options.runId} ${kind} held` },
    );
    try {
      const held = await holdSandbox({
        argv,
        attributionKey: attributionKeyOf(commandId),
        cwd: options.place.tree,
        tools: support.tools,
      });
      return {
        ...held,
        // The policy's names are taken away whatever the wrap was read to say.
        unset: [...new Set([...held.unset, ...rules.deniedVariables])],
        ...(cacheFolder === undefined ? {} : { cacheFolder }),
        async end() {
          await held.end();
          manager.cleanupAfterCommand();
          await dropCaches();
        },
      };
    } catch (error) {
      manager.cleanupAfterCommand();
      throw error;
    }
  } catch (error) {
    await dropCaches();
    throw error;
  }
}
