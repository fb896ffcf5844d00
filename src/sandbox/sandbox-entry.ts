/**
 * One query's or one check's stay in a run's sandbox (docs/sandbox.md#how-it-runs): the kind's
 * policy read afresh (another run of a batch may have made or deleted a branch since), a
 * network allow list and an attribution of its own, and, when it leaves, what was refused
 * judged. Its processes join the kind's held sandbox (docs/sandbox.md#held-sandbox), or, where
 * the machine cannot join one, each starts in a wrap of the entry's own.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { CloserError } from "../errors.js";
import type { SandboxEntry } from "../ports/loop-ports.js";
import type { LaunchWrapper, ProcessKind } from "../ports/process.js";
import type { SandboxConfig } from "../ports/runner-config.js";
import { enteredLaunch, type JoinWay } from "./entered-launch.js";
import { makeHeldPlaces } from "./held-places.js";
import type { HeldSandboxes, HeldStay } from "./held-sandboxes.js";
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
import type { SandboxManager } from "./sandbox-runtime.js";
import { makeSandboxedLaunch, TRAMPOLINE } from "./sandboxed-launch.js";
import {
  cacheVariables,
  makeCacheFolder,
  removeCacheFolder,
  type UserToolchain,
} from "./tool-caches.js";

export interface PrepareSandboxOptions {
  readonly config: SandboxConfig;
  readonly runId: string;
  /** Where the run works; the scratch folder and the caches' folders are made here. */
  readonly place: Omit<SandboxPlace, "scratchDir" | "caches">;
  /** agent.json, named in a refusal to start. */
  readonly agentFile: string;
}

/** What every entry of one run's sandbox shares. */
export interface RunSandboxContext {
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
  /** The kinds' held sandboxes and how processes join them; absent where they cannot be joined. */
  readonly held?: { readonly sandboxes: HeldSandboxes; readonly join: JoinWay };
}

/**
 * The rules a kind's processes run under. A check's own caches folder is writable to it: in a
 * held sandbox, the checks' common place, which each check's process covers with its own.
 */
export function kindRules(
  kind: ProcessKind,
  policy: SandboxPolicy,
  checksCaches: string,
): KindPolicy {
  if (kind === "backend") return policy.backend;
  return { ...policy.validators, allowWrite: [...policy.validators.allowWrite, checksCaches] };
}

/** The library's configuration of a wrap under `rules`. */
export function wrapConfig(rules: KindPolicy) {
  return {
    filesystem: {
      allowWrite: [...rules.allowWrite],
      denyWrite: [...rules.denyWrite],
      denyRead: [...rules.denyRead],
    },
    // The environment policy's second layer (docs/sandbox.md#policy).
    credentials: {
      envVars: rules.deniedVariables.map((name) => ({ name, mode: "deny" as const })),
    },
  };
}

/** The attribution key the library gives an entry's command id (base64 of it). */
export function attributionKeyOf(commandId: string): string {
  return Buffer.from(commandId).toString("base64");
}

export async function enterSandbox(
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
  // In a held sandbox a check's process covers the checks' common place with its own folder.
  const cachePlace = kind === "validators" && run.held !== undefined ? caches.checks : cacheFolder;
  const rules = kindRules(kind, policy, cachePlace);
  const commandId = randomBytes(16).toString("base64url");
  let label = `closer ${options.runId} ${kind} ${entry}`;
  let stay: HeldStay | undefined;
  const watch = watchRefusedConnections(kind, run.judgeOf(rules, policy.unheld));
  const forget = async () => {
    manager.unregisterHosts(commandId);
    run.reported.delete(label);
    run.watches.delete(label);
    await stay?.leave();
    if (kind === "validators") await removeCacheFolder(cacheFolder);
  };
  const leave = async () => {
    await manager.refusalsDelivered();
    if (stay === undefined) manager.cleanupAfterCommand();
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
    // The monitor names a refusal by the text registered for its key, or by the key itself.
    if (run.held !== undefined && !(await manager.labelCommand(commandId, label))) {
      label = commandId;
    }
    run.reported.set(label, []);
    run.watches.set(label, watch);
    const settings = {
      tmpDir: scratchDir,
      clearNoProxy: rules.hosts.some(isLoopbackHost),
      defaults: cacheVariables(kind, cachePlace, run.user),
    };
    let wrapper: LaunchWrapper;
    if (run.held === undefined) {
      const argv = await manager.wrap(TRAMPOLINE, wrapConfig(rules), {
        cwd: options.place.tree,
        commandId,
        commandText: label,
      });
      wrapper = makeSandboxedLaunch({ argv }, settings);
    } else {
      stay = await run.held.sandboxes.enter(kind, rules);
      const joined = {
        ...settings,
        held: stay.held,
        join: run.held.join,
        attributionKey: attributionKeyOf(commandId),
        cwd: options.place.tree,
        ...(kind === "validators" ? { ownCaches: { folder: cacheFolder, at: caches.checks } } : {}),
      };
      wrapper = (launch) => enteredLaunch(launch, joined);
    }
    return { wrapper, tempDir: scratchDir, leave, refused: watch.signal };
  } catch (error) {
    await forget();
    throw error;
  }
}

export async function registerHosts(
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
