/**
 * A run's held sandboxes (docs/sandbox.md#held-sandbox), by kind of process. An entry (a query,
 * a check) has one to itself while it stays: entries one after another take the same, and
 * entries at once (the checks of one phase) each take their own, so nothing of one (a port it
 * listens on) meets another. A sandbox is made again whenever what its mounts were made of
 * changed: bubblewrap binds a place when the sandbox starts, and a place made, removed or
 * replaced on the machine since (another run's new branch, a rewritten `packed-refs`) would
 * no longer be held as the policy says, so each entry compares the policy and what each of
 * its places is now with what the sandbox was made of. A sandbox no longer current ends once
 * its entry has left; one whose holder ended (killed on the machine) is made again.
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
  readonly kind: ProcessKind;
  readonly fingerprint: string;
  readonly held: Promise<HeldSandbox>;
  /** The sandbox, once started. */
  started?: HeldSandbox;
  /** Whether an entry is in it. */
  taken: boolean;
}

/** A stay in a held sandbox: `leave` once its processes ended; a sandbox left not reusable ends. */
export interface HeldStay {
  readonly held: HeldSandbox;
  leave(how?: { readonly reusable: boolean }): Promise<void>;
}

export class HeldSandboxes {
  readonly #start: (kind: ProcessKind, rules: KindPolicy) => Promise<HeldSandbox>;
  readonly #slots = new Set<Slot>();
  /** What the latest entry of each kind found its rules and places to be. */
  readonly #latest = new Map<ProcessKind, string>();

  constructor(start: (kind: ProcessKind, rules: KindPolicy) => Promise<HeldSandbox>) {
    this.#start = start;
  }

  /** Starts a sandbox of the kind ahead of its first entry; a failure is the entry's to report. */
  async prepare(kind: ProcessKind, rules: KindPolicy): Promise<void> {
    const fingerprint = await policyFingerprint(rules);
    const slot = this.#free(kind, fingerprint) ?? this.#add(kind, fingerprint, rules);
    await slot.held.catch(() => undefined);
  }

  /** Takes a free sandbox of the kind made for `rules` as they are now, or starts one. */
  async enter(kind: ProcessKind, rules: KindPolicy): Promise<HeldStay> {
    const fingerprint = await policyFingerprint(rules);
    const slot = this.#free(kind, fingerprint) ?? this.#add(kind, fingerprint, rules);
    slot.taken = true;
    let held: HeldSandbox;
    try {
      held = await slot.held;
    } catch (error) {
      this.#slots.delete(slot);
      throw error;
    }
    let left = false;
    return {
      held,
      leave: async (how) => {
        if (left) return;
        left = true;
        slot.taken = false;
        const reusable = how?.reusable !== false;
        if (!reusable || !this.#usable(slot, this.#latest.get(kind) ?? fingerprint)) {
          await this.#end(slot);
        }
      },
    };
  }

  /** Ends every held sandbox of the run, and any process still in one. */
  async end(): Promise<void> {
    await Promise.all([...this.#slots].map((slot) => this.#end(slot)));
  }

  /** A free sandbox of the kind made for `fingerprint`; free ones made for another are ended. */
  #free(kind: ProcessKind, fingerprint: string): Slot | undefined {
    this.#latest.set(kind, fingerprint);
    let found: Slot | undefined;
    for (const slot of this.#slots) {
      if (slot.kind !== kind || slot.taken) continue;
      if (!this.#usable(slot, fingerprint)) void this.#end(slot);
      else found ??= slot;
    }
    return found;
  }

  #usable(slot: Slot, fingerprint: string): boolean {
    return (
      this.#slots.has(slot) && slot.fingerprint === fingerprint && slot.started?.alive() !== false
    );
  }

  #add(kind: ProcessKind, fingerprint: string, rules: KindPolicy): Slot {
    const slot: Slot = { kind, fingerprint, held: this.#start(kind, rules), taken: false };
    void slot.held.then(
      (held) => {
        slot.started = held;
      },
      () => this.#slots.delete(slot),
    );
    this.#slots.add(slot);
    return slot;
  }

  async #end(slot: Slot): Promise<void> {
    if (!this.#slots.delete(slot)) return;
    const held = await slot.held.catch(() => undefined);
    await held?.end();
  }
}
