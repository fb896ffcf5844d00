import type { ProtectedFingerprint } from "./files.js";
import type { TestInventory } from "./test-inventory.js";

/**
 * The tree as the run found it, measured before iteration 1 with the checks
 * as they were defined at the start (docs/integrity.md#baseline). Kept in
 * run.json, so a resumed run compares against the same start.
 */
export interface Baseline {
  /** ISO time the baseline was taken. */
  readonly takenAt: string;
  /** The commit HEAD named at the baseline; absent outside git or before the first commit. */
  readonly commit?: string;
  /** Every validator of the completion steps, and whether it passed on the untouched tree. */
  readonly checks: readonly { readonly validator: string; readonly valid: boolean }[];
  /** Files with uncommitted changes before the run (relative to the working tree). */
  readonly dirtyFiles: readonly string[];
  /** The tests each test validator listed, by validator name. */
  readonly inventories: Readonly<Record<string, TestInventory>>;
  /** Protected paths with their content hashes. */
  readonly protectedFiles: ProtectedFingerprint;
  /** The repository's git config files, hooks and info/ files with their hashes (docs/integrity.md#git-state). */
  readonly gitState?: Readonly<Record<string, string>>;
  /**
   * The ignored entries of the tree linked into the clean room (docs/integrity.md#clean-room):
   * a resumed run links the same ones.
   */
  readonly keptInRoom?: readonly string[];
  /**
   * The tree object closer wrote of the untouched work, which the clean room its checks ran in
   * was made from (docs/integrity.md#clean-room); absent where the checks ran in the tree.
   */
  readonly tree?: string;
  /**
   * The checks, run beside the first query, had not ended when run.json was written: `checks`
   * and `inventories` are empty, and a resumed run runs them again on `tree`
   * (docs/integrity.md#baseline).
   */
  readonly checksPending?: true;
}
