/**
 * What a test run lost against the baseline run: deleted, skipped, filtered or no
 * longer run tests (docs/completion.md#test-inventory).
 */

import type { InventoryTest, TestCounts, TestInventory } from "../ports/test-inventory.js";
import { ranOf, ZERO_COUNTS } from "./inventory-test.js";

export interface InventoryLoss {
  /** True when anything below says that tests stopped running (see compareInventories). */
  readonly lost: boolean;
  /** How the runs were compared: by test names when both listings are complete, otherwise by counts. */
  readonly comparedBy: "names" | "counts";
  /** Baseline tests no longer listed; only when compared by names. A renamed test is missing too. */
  readonly missing: readonly string[];
  /** Tests that ran (passed or failed) in the baseline and are skipped or todo now. */
  readonly newlySkipped: readonly string[];
  /** Tests that passed or failed in the baseline; undefined when its output did not say. */
  readonly ranBefore: number | undefined;
  /** Tests that passed or failed now (0 without recognisable output); undefined when the output did not say. */
  readonly ranNow: number | undefined;
  /** Skipped and todo tests in the baseline; undefined when its output did not say. */
  readonly skippedBefore: number | undefined;
  /** Skipped and todo tests now; undefined when the output did not say. */
  readonly skippedNow: number | undefined;
  /** A focus or filter shows now that the baseline did not show. */
  readonly focused: boolean;
  /** No test ran now, or the output is no longer recognisably a test run. */
  readonly noTestsRan: boolean;
}

function isRan(test: InventoryTest): boolean {
  return test.state === "passed" || test.state === "failed";
}

/** Each name with the states it was listed in (a name can be listed more than once). */
function statesByName(tests: readonly InventoryTest[]): Map<string, InventoryTest["state"][]> {
  const byName = new Map<string, InventoryTest["state"][]>();
  for (const test of tests) byName.set(test.name, [...(byName.get(test.name) ?? []), test.state]);
  return byName;
}

function findNewlySkipped(baseline: TestInventory, now: TestInventory | undefined): string[] {
  const nowStates = statesByName(now?.tests ?? []);
  const ranBefore = new Set(baseline.tests.filter(isRan).map((test) => test.name));
  return [...ranBefore].filter((name) => {
    const states = nowStates.get(name);
    return states?.every((state) => state === "skipped" || state === "todo") === true;
  });
}

/**
 * A test's name with its numbers masked: names made from `Math.random()`, `Date.now()` or a
 * date change on every run, and a test that ran under another number is still the same test
 * (docs/completion.md#test-inventory).
 */
function stableName(name: string): string {
  return name.replace(/\d+/g, "#");
}

function findMissing(baseline: TestInventory, now: TestInventory): string[] {
  const nowNames = new Set(now.tests.map((test) => stableName(test.name)));
  return [...new Set(baseline.tests.map((test) => test.name))].filter(
    (name) => !nowNames.has(stableName(name)),
  );
}

const skippedOf = (counts: TestCounts) => counts.skipped + counts.todo;

/** Whether a count went down from `before` to `now`, when both are known. */
function fell(before: number | undefined, now: number | undefined): boolean {
  return before !== undefined && now !== undefined && now < before;
}

/** Whether a count went up from `before` to `now`, when both are known. */
function rose(before: number | undefined, now: number | undefined): boolean {
  return fell(now, before);
}

/**
 * Compares a test run with the baseline run. It is `lost` when a baseline test
 * is missing or newly skipped, fewer tests ran, a focus appeared, the output is
 * no longer a recognisable test run, or tests ran before and none ran now. When
 * names cannot be compared (either listing incomplete), more skipped tests than
 * before is a loss too: the counts cannot tell a new skipped test from a
 * skipped old one. A baseline that ran no tests loses nothing by running none.
 */
export function compareInventories(
  baseline: TestInventory,
  now: TestInventory | undefined,
): InventoryLoss {
  const countsNow = now === undefined ? ZERO_COUNTS : now.counts;
  const byNames = baseline.complete && now?.complete === true;
  const missing = byNames && now ? findMissing(baseline, now) : [];
  const newlySkipped = findNewlySkipped(baseline, now);
  const ranBefore = baseline.counts && ranOf(baseline.counts);
  const ranNow = countsNow && ranOf(countsNow);
  const skippedBefore = baseline.counts && skippedOf(baseline.counts);
  const skippedNow = countsNow && skippedOf(countsNow);
  const focused = now?.focused === true && baseline.focused !== true;
  const noTestsRan = ranNow === 0;
  const lost =
    missing.length > 0 ||
    newlySkipped.length > 0 ||
    fell(ranBefore, ranNow) ||
    (!byNames && rose(skippedBefore, skippedNow)) ||
    focused ||
    now === undefined ||
    (noTestsRan && ranBefore !== 0);
  return {
    lost,
    comparedBy: byNames ? "names" : "counts",
    missing,
    newlySkipped,
    ranBefore,
    ranNow,
    skippedBefore,
    skippedNow,
    focused,
    noTestsRan,
  };
}
