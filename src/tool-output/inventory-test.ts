import type {
  InventoryReading,
  InventoryTest,
  TestCounts,
  TestInventory,
} from "../ports/test-inventory.js";

/** The tests a run of a test runner reports, as a guard against deleted or skipped tests needs them. */

export const ZERO_COUNTS: TestCounts = { passed: 0, failed: 0, skipped: 0, todo: 0 };

export function countStates(tests: readonly InventoryTest[]): TestCounts {
  const counts = { ...ZERO_COUNTS };
  for (const test of tests) counts[test.state] += 1;
  return counts;
}

export function addCounts(left: TestCounts, right: Partial<TestCounts>): TestCounts {
  return {
    passed: left.passed + (right.passed ?? 0),
    failed: left.failed + (right.failed ?? 0),
    skipped: left.skipped + (right.skipped ?? 0),
    todo: left.todo + (right.todo ?? 0),
  };
}

/**
 * How many tests a run counted, in every state: its summary's count, else the
 * tests it names when they are the whole run; undefined when the output does
 * not tell (go test without -v names only failures).
 */
export function countTests(inventory: TestInventory): number | undefined {
  const { counts } = inventory;
  if (counts === undefined) return inventory.complete ? inventory.tests.length : undefined;
  return counts.passed + counts.failed + counts.skipped + counts.todo;
}

/** Tests that ran to a verdict: passed or failed. */
export function ranOf(counts: TestCounts): number {
  return counts.passed + counts.failed;
}

function isSameCounts(left: TestCounts, right: TestCounts): boolean {
  return (
    left.passed === right.passed &&
    left.failed === right.failed &&
    left.skipped === right.skipped &&
    left.todo === right.todo
  );
}

/**
 * The inventory of a reading: the listing is complete when it adds up, state by
 * state, to the summary's counts. A runner without a summary whose listing is the
 * run's whole account (TAP, go test -v) passes the counts of its listing.
 */
export function makeInventory(reading: InventoryReading): TestInventory {
  const { runner, tests, counts, focused } = reading;
  const complete = counts !== undefined && isSameCounts(counts, countStates(tests));
  return {
    runner,
    tests,
    ...(counts ? { counts } : {}),
    complete,
    ...(focused ? { focused } : {}),
  };
}

/** Adds up `N word` parts (`3 passed`, `1 skipped`) by word; unknown words are kept too. */
export function readCountParts(parts: readonly string[]): Map<string, number> {
  const byWord = new Map<string, number>();
  for (const part of parts) {
    const match = /^\s*(\d+)\s+([a-z][a-z ]*?)\s*(?:\(.*\))?\s*$/i.exec(part);
    if (!match) continue;
    const word = (match[2] as string).toLowerCase();
    byWord.set(word, (byWord.get(word) ?? 0) + Number(match[1]));
  }
  return byWord;
}

/** The sum of the counts of some words of `readCountParts`. */
export function sumOf(byWord: ReadonlyMap<string, number>, words: readonly string[]): number {
  return words.reduce((sum, word) => sum + (byWord.get(word) ?? 0), 0);
}
