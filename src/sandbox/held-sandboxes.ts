/**
 * A run's held sandboxes (docs/sandbox.md#held-sandbox): one per kind of process, made again
 * whenever what its mounts were made of changed. bubblewrap binds a place when the sandbox
 * starts: a place made, removed or replaced on the machine since (another run's new branch,
 * a rewritten `packed-refs`) would no longer be held as the policy says, so each entry
 * compares the policy and what each of its places is now with what the sandbox was made of.
 * A sandbox no longer current ends when its last entry has left; one whose holder ended
 * (killed on the machine) is made again.
 */
import { stat } from "node:fs/promises";
import type { ProcessKind } from "../ports/process.js";
import type { HeldSandbox } from "./held-sandbox.js";
import type { KindPolicy } from "./sandbox-policy.js";

/** What a held sandbox's mounts are made of: the kind's rules and each place as it is now. */
export async function policyFingerprint(rules: KindPolicy): Promise<string> {
  const { allowWrite, denyWrite, denyRead, deniedVariables } = rules;
  const places = [...new Set([...allowWrite, ...denyWrite, ...denyRead])];
  const found = await Promise.all(
    places.map(async (place) => {
      const seen = await stat(place).catch(() => undefined);
      return seen === undefined ? "-" : `${seen.dev}:${seen.ino}`;
    }),
  );
  return JSON.stringify({ allowWrite, denyWrite, denyRead, deniedVariables, found });
}

interface Slot {
  readonly fingerprint: string;
  readonly held: Promise<HeldSandbox>;
  /** The sandbox, once started. */
  started?: HeldSandbox;
  entries: number;
  current: boolean;
}

/** A stay in a held sandbox: `leave` once its processes ended. */
export interface HeldStay {
  readonly held: HeldSandbox;
  leave(): Promise<void>;
}

export class HeldSandboxes {
  readonly #start: (kind: ProcessKind, rules: KindPolicy) => Promise<HeldSandbox>;
  readonly #current = new Map<ProcessKind, Slot>();
  readonly #all = new Set<Slot>();

  constructor(start: (kind: ProcessKind, rules: KindPolicy) => Promise<HeldSandbox>) {
    this.#start = start;
  }

  /** Starts the kind's sandbox ahead of its first entry; a failure is the entry's to report. */
  async prepare(kind: ProcessKind, rules: KindPolicy): Promise<void> {
    const slot = this.#slotFor(kind, await policyFingerprint(rules), rules);
    await slot.held.catch(() => undefined);
  }

  /** Enters the kind's sandbox for `rules`, made again first when they or their places changed. */
  async enter(kind: ProcessKind, rules: KindPolicy): Promise<HeldStay> {
    const slot = this.#slotFor(kind, await policyFingerprint(rules), rules);
    slot.entries += 1;
    let held: HeldSandbox;
    try {
      held = await slot.held;
    } catch (error) {
      slot.entries -= 1;
      this.#forget(kind, slot);
      throw error;
    }
    let left = false;
    return {
      held,
      leave: async () => {
        if (left) return;
        left = true;
        slot.entries -= 1;
        if (!slot.current && slot.entries === 0) await this.#end(slot);
      },
    };
  }

  /** Ends every held sandbox of the run, and any process still in one. */
  async end(): Promise<void> {
    this.#current.clear();
    await Promise.all([...this.#all].map((slot) => this.#end(slot)));
  }

  #slotFor(kind: ProcessKind, fingerprint: string, rules: KindPolicy): Slot {
    const current = this.#current.get(kind);
    if (current?.fingerprint === fingerprint && current.started?.alive() !== false) return current;
    if (current !== undefined) {
      current.current = false;
      if (current.entries === 0) void this.#end(current);
    }
    const slot: Slot = { fingerprint, held: this.#start(kind, rules), entries: 0, current: true };
    void slot.held.then(
      (held) => {
        slot.started = held;
      },
      () => undefined,
    );
    this.#current.set(kind, slot);
    this.#all.add(slot);
    return slot;
  }

  #forget(kind: ProcessKind, slot: Slot): void {
    if (this.#current.get(kind) === slot) this.#current.delete(kind);
    slot.current = false;
    this.#all.delete(slot);
  }

  async #end(slot: Slot): Promise<void> {
    if (!this.#all.delete(slot)) return;
    const held = await slot.held.catch(() => undefined);
    await held?.end();
  }
}
