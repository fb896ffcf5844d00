/**
 * One query's or one check's stay in a run's sandbox (docs/sandbox.md#how-it-runs): the kind's
 * policy read afresh (another run of a batch may have made or deleted a branch since), a
 * network allow list and an attribution of its own, and, when it leaves, what was refused
 * judged. Its processes join the kind's held sandbox (docs/sandbox.md#held-sandbox), or, where
 * the machine cannot join one, each starts in a wrap of the entry's own.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxEntry } from "../ports/loop-ports.js";
import type { ProcessKind } from "../ports/process.js";
import type { SandboxConfig } from "../ports/runner-config.js";
import { enteredLaunch, type JoinWay } from "./entered-launch.js";
import { type Attribution, attribute } from "./entry-attribution.js";
import { makeHeldPlaces } from "./held-places.js";
import type { HeldSandboxes } from "./held-sandboxes.js";
import type { RefusalWatch } from "./refusal-watch.js";
import type { RefusalJudge } from "./refusals.js";
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

/** `rules` with one more place its processes may write. */
export function withWrite(rules: KindPolicy, place: string): KindPolicy {
  return { ...rules, allowWrite: [...rules.allowWrite, place] };
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
  const place = { ...run.options.place, scratchDir: run.scratchDir, caches: run.caches };
  const policy = sandboxPolicyFor(place);
  run.made.push(...(await makeHeldPlaces(placesToMake(place, policy))));
  const entering = { kind, entry, policy };
  return run.held === undefined ? enterOwnWrap(run, entering) : enterHeld(run, run.held, entering);
}

interface Entering {
  readonly kind: ProcessKind;
  readonly entry: number;
  readonly policy: SandboxPolicy;
}

/**
 * A query or check in a held sandbox of its own while it stays (docs/sandbox.md#held-sandbox).
 * A check writes the held sandbox's caches folder, emptied before the next check takes it.
 */
async function enterHeld(
  run: RunSandboxContext,
  held: NonNullable<RunSandboxContext["held"]>,
  { kind, entry, policy }: Entering,
): Promise<SandboxEntry> {
  const stay = await held.sandboxes.enter(kind, policy[kind]);
  const cacheFolder = stay.held.cacheFolder ?? run.caches.model;
  const rules = kind === "validators" ? withWrite(policy[kind], cacheFolder) : policy[kind];
  let attribution: Attribution;
  try {
    attribution = await attribute(run, { kind, entry, rules, unheld: policy.unheld }, true);
  } catch (error) {
    await stay.leave();
    throw error;
  }
  const joined = {
    ...launchSettings(run, kind, rules, cacheFolder),
    held: stay.held,
    join: held.join,
    attributionKey: attributionKeyOf(attribution.commandId),
    cwd: run.options.place.tree,
  };
  return {
    wrapper: (launch) => enteredLaunch(launch, joined),
    tempDir: run.scratchDir,
    refused: attribution.refused,
    async leave() {
      let emptied = kind === "backend";
      try {
        await attribution.end();
        if (!emptied) await emptyCacheFolder(cacheFolder, run.user);
        emptied = true;
      } finally {
        // A check's caches that could not be emptied are never another check's: the sandbox ends.
        await stay.leave({ reusable: emptied });
      }
    },
  };
}

/** A query or check in a wrap of its own, where processes cannot join a held sandbox. */
async function enterOwnWrap(
  run: RunSandboxContext,
  { kind, entry, policy }: Entering,
): Promise<SandboxEntry> {
  // Each check's caches are its own, empty when it starts and gone when it ends (docs/sandbox.md#caches).
  const cacheFolder =
    kind === "backend" ? run.caches.model : join(run.caches.checks, String(entry));
  if (kind === "validators") await makeCacheFolder(cacheFolder, run.user);
  const rules = kind === "validators" ? withWrite(policy[kind], cacheFolder) : policy[kind];
  const dropCaches = async () => {
    if (kind === "validators") await removeCacheFolder(cacheFolder);
  };
  let attribution: Attribution | undefined;
  try {
    attribution = await attribute(run, { kind, entry, rules, unheld: policy.unheld }, false);
    const argv = await run.manager.wrap(TRAMPOLINE, wrapConfig(rules), {
      cwd: run.options.place.tree,
      commandId: attribution.commandId,
      commandText: attribution.label,
    });
    const own = attribution;
    return {
      wrapper: makeSandboxedLaunch({ argv }, launchSettings(run, kind, rules, cacheFolder)),
      tempDir: run.scratchDir,
      refused: own.refused,
      async leave() {
        await own.end(() => run.manager.cleanupAfterCommand());
        await dropCaches();
      },
    };
  } catch (error) {
    attribution?.forget();
    await dropCaches();
    throw error;
  }
}

function launchSettings(
  run: RunSandboxContext,
  kind: ProcessKind,
  rules: KindPolicy,
  cacheFolder: string,
) {
  return {
    tmpDir: run.scratchDir,
    clearNoProxy: rules.hosts.some(isLoopbackHost),
    defaults: cacheVariables(kind, cacheFolder, run.user),
  };
}

/**
 * Empties a held sandbox's caches folder for the next check, and seeds it again. The folder
 * itself stays: the sandbox's mount of it would not survive its removal.
 */
async function emptyCacheFolder(folder: string, user: UserToolchain): Promise<void> {
  for (const entry of await readdir(folder)) await removeCacheFolder(join(folder, entry));
  await makeCacheFolder(folder, user);
}
