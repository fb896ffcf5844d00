import type { Baseline } from "../ports/baseline.js";
import { BUILTIN_PATTERN_NAMES, type CheckFailure } from "../ports/check-failure.js";
import type { ProtectedFingerprint } from "../ports/files.js";
import type { TestInventory } from "../ports/test-inventory.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import { compareInventories, type InventoryLoss } from "../tool-output/compare-inventories.js";
import { ranOf } from "../tool-output/inventory-test.js";
import { joinOutput } from "../tool-output/output-lines.js";
import { parseTestInventory } from "../tool-output/test-inventory.js";

/** How the protected paths differ from the baseline. */
export interface ProtectedChanges {
  readonly changed: readonly string[];
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

export function compareProtected(
  before: ProtectedFingerprint,
  after: ProtectedFingerprint,
): ProtectedChanges {
  const changed: string[] = [];
  const removed: string[] = [];
  for (const [file, hash] of Object.entries(before)) {
    const now = after[file];
    if (now === undefined) removed.push(file);
    else if (now !== hash) changed.push(file);
  }
  const added = Object.keys(after).filter((file) => before[file] === undefined);
  return { changed: changed.sort(), added: added.sort(), removed: removed.sort() };
}

/** `protected-changed` (docs/integrity.md#guards): a protected path differs from the baseline. */
export function protectedChangedFailure(
  before: ProtectedFingerprint,
  after: ProtectedFingerprint,
): CheckFailure | undefined {
  const { changed, added, removed } = compareProtected(before, after);
  const protectedPaths = [
    ...changed.map((file) => `${file} (changed)`),
    ...added.map((file) => `${file} (added)`),
    ...removed.map((file) => `${file} (removed)`),
  ];
  if (protectedPaths.length === 0) return undefined;
  return {
    kind: "guard",
    name: BUILTIN_PATTERN_NAMES.protectedChanged,
    pattern: BUILTIN_PATTERN_NAMES.protectedChanged,
    params: { protectedPaths },
    detail: `protected paths changed since the run started: ${protectedPaths.join(", ")}`,
  };
}

/** The test inventory a validator's output shows, when it is a test runner's. */
export function inventoryOf(outcome: ValidatorOutcome): TestInventory | undefined {
  if (outcome.stdout === undefined && outcome.stderr === undefined) return undefined;
  return parseTestInventory(joinOutput(outcome.stdout ?? "", outcome.stderr ?? ""));
}

/**
 * `tests-removed` (docs/integrity.md#guards): a test of the baseline is
 * gone, newly skipped or focused away, fewer tests ran, or a test validator
 * ran no test at all. Only test validators that passed in this check are
 * compared: a failing one already tells the model what is wrong.
 */
export function testsRemovedFailure(
  baseline: Baseline,
  outcomes: readonly ValidatorOutcome[],
  testValidators: ReadonlySet<string>,
): CheckFailure | undefined {
  for (const outcome of outcomes) {
    if (!outcome.valid) continue; // a failing check already says what is wrong
    const before = baseline.inventories[outcome.validator];
    if (before === undefined && !testValidators.has(outcome.validator)) continue;
    const loss = lossOf(before, inventoryOf(outcome));
    if (loss.lost) return testsRemoved(outcome.validator, loss);
  }
  return undefined;
}

/**
 * Against the baseline's inventory; without one, only "no test ran" is a loss
 * (output that is no test run's, or a summary that counts none).
 */
function lossOf(before: TestInventory | undefined, now: TestInventory | undefined): InventoryLoss {
  if (before !== undefined) return compareInventories(before, now);
  const ranNow = now === undefined ? 0 : now.counts === undefined ? undefined : ranOf(now.counts);
  return {
    lost: ranNow === 0,
    comparedBy: "counts",
    missing: [],
    newlySkipped: [],
    ranBefore: undefined,
    ranNow,
    skippedBefore: undefined,
    skippedNow: undefined,
    focused: false,
    noTestsRan: ranNow === 0,
  };
}

function testsRemoved(validator: string, loss: InventoryLoss): CheckFailure {
  const found = [
    loss.missing.length > 0 ? `missing: ${loss.missing.join(", ")}` : "",
    loss.newlySkipped.length > 0 ? `now skipped: ${loss.newlySkipped.join(", ")}` : "",
    loss.focused ? "a focus filter (.only) limits the tests that run" : "",
    loss.noTestsRan ? "no test ran" : "",
    ranFewer(loss) ? `${loss.ranNow} tests ran, ${loss.ranBefore} at the start` : "",
  ].filter((part) => part !== "");
  return {
    kind: "guard",
    name: BUILTIN_PATTERN_NAMES.testsRemoved,
    pattern: BUILTIN_PATTERN_NAMES.testsRemoved,
    params: {
      validator,
      missingTests: loss.missing,
      skippedTests: loss.newlySkipped,
      testsRanBefore: loss.ranBefore ?? "",
      testsRanNow: loss.ranNow ?? "",
      focused: loss.focused,
      noTestsRan: loss.noTestsRan,
    },
    detail: `${validator}: ${found.join("; ")}`,
  };
}

function ranFewer(loss: InventoryLoss): boolean {
  return loss.ranBefore !== undefined && loss.ranNow !== undefined && loss.ranNow < loss.ranBefore;
}
