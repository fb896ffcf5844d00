/** Test inventories from the reporters of vitest, jest and mocha (default and verbose). */

import type {
  InventoryTest,
  TestCounts,
  TestInventory,
  TestState,
} from "../ports/test-inventory.js";
import { SUITE_SEPARATOR, stripDuration } from "./failed-test.js";
import { makeInventory, readCountParts, sumOf, ZERO_COUNTS } from "./inventory-test.js";
import { indentOf, leaveSuites, nameInSuites, type SuiteEntry } from "./suite-stack.js";

const VITEST_HEADER = /^\s*RUN\s+v\d+\.\d+/;
/** ` Tests  1 failed | 3 passed | 1 skipped | 1 todo (6)` */
const VITEST_SUMMARY = /^\s*Tests\s{2,}(\d.*?)\s*\(\d+\)\s*$/;
const VITEST_NO_TESTS = /^\s*Tests\s+no tests\s*$|^\s*No test files found, exiting with code \d+/;
/** The verbose reporter's `✓ file > suite > test 2ms`; the default one has no ` > ` in its tree. */
const VITEST_VERBOSE =
  /^\s*([✓✔×✗↓□])\s+(?:\|[^|]+\|\s+)?(\S.*? > .+?)(?:\s+\d+(?:\.\d+)?m?s)?\s*$/;
const VITEST_FAIL = /^\s*FAIL\s+(?:\|[^|]+\|\s+)?(\S.*? > .+?)\s*$/;
const VITEST_STATES: Readonly<Record<string, TestState>> = {
  "✓": "passed",
  "✔": "passed",
  "×": "failed",
  "✗": "failed",
  "↓": "skipped",
  "□": "todo",
};

/** The counts of a vitest or jest summary line (`Tests  1 failed | 3 passed (4)`, `Tests: 1 failed, 3 passed, 4 total`). */
function readSummaryCounts(
  lines: readonly string[],
  format: { readonly noTests: RegExp; readonly summary: RegExp; readonly separator: string },
): TestCounts | undefined {
  let counts: TestCounts | undefined;
  for (const line of lines) {
    if (format.noTests.test(line)) counts ??= ZERO_COUNTS;
    const summary = format.summary.exec(line);
    if (!summary) continue;
    const byWord = readCountParts((summary[1] as string).split(format.separator));
    counts = {
      passed: sumOf(byWord, ["passed"]),
      failed: sumOf(byWord, ["failed"]),
      skipped: sumOf(byWord, ["skipped"]),
      todo: sumOf(byWord, ["todo"]),
    };
  }
  return counts;
}

export function readVitestInventory(lines: readonly string[]): TestInventory | undefined {
  const counts = readSummaryCounts(lines, {
    noTests: VITEST_NO_TESTS,
    summary: VITEST_SUMMARY,
    separator: "|",
  });
  if (!counts && !lines.some((line) => VITEST_HEADER.test(line))) return undefined;
  const verbose: InventoryTest[] = [];
  const failed: InventoryTest[] = [];
  for (const line of lines) {
    const test = VITEST_VERBOSE.exec(line);
    if (test) {
      verbose.push({
        name: test[2] as string,
        state: VITEST_STATES[test[1] as string] ?? "failed",
      });
      continue;
    }
    const failure = VITEST_FAIL.exec(line);
    if (failure) failed.push({ name: failure[1] as string, state: "failed" });
  }
  // The verbose listing names failures too; the FAIL reports after it repeat them.
  const tests = verbose.length > 0 ? verbose : failed;
  const focused = lines.some((line) => line.includes("Unexpected .only modifier"));
  return makeInventory({ runner: "vitest", tests, counts, focused });
}

const JEST_FILE = /^\s*(?:PASS|FAIL)\s+(\S.*?)(?:\s+\(\d[\d.]*\s*m?s\))?\s*$/;
const JEST_TEST = /^(\s+)(✓|√|✕|×|○ skipped|✎ todo)\s+(.+?)\s*$/;
const JEST_FAILURE = /^\s*● (.+?)\s*$/;
const JEST_SUMMARY = /^Tests:\s+(\d.*?)\s*$/;
const JEST_NO_TESTS = /^No tests found, exiting with code \d+/;
/** `-t`, a path pattern or `-o` ran only some of the tests. */
const JEST_FILTERED = /^Ran all test suites (?:with tests matching|matching|related to)\b/;
const JEST_STATES: Readonly<Record<string, TestState>> = {
  "✓": "passed",
  "√": "passed",
  "✕": "failed",
  "×": "failed",
  "○ skipped": "skipped",
  "✎ todo": "todo",
};

/** The verbose tree right under a `PASS`/`FAIL` file line: contiguous, one suite level per 2 spaces. */
function readJestTree(lines: readonly string[], start: number, file: string): InventoryTest[] {
  const tests: InventoryTest[] = [];
  const suites: SuiteEntry[] = [];
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.trim() === "" || JEST_FILE.test(line) || JEST_FAILURE.test(line)) break;
    const indent = indentOf(line);
    leaveSuites(suites, indent);
    const test = JEST_TEST.exec(line);
    if (!test) {
      suites.push({ indent, name: line.trim() });
      continue;
    }
    const name = nameInSuites(suites, stripDuration(test[3] as string), file);
    tests.push({ name, state: JEST_STATES[test[2] as string] ?? "failed" });
  }
  return tests;
}

export function readJestInventory(lines: readonly string[]): TestInventory | undefined {
  const counts = readSummaryCounts(lines, {
    noTests: JEST_NO_TESTS,
    summary: JEST_SUMMARY,
    separator: ",",
  });
  if (!counts) return undefined;
  const tests: InventoryTest[] = [];
  const named = new Set<string>();
  let file: string | undefined;
  for (const [index, line] of lines.entries()) {
    if (/^Summary of all failing tests/.test(line)) break;
    const fileLine = JEST_FILE.exec(line);
    if (fileLine) {
      file = fileLine[1] as string;
      for (const test of readJestTree(lines, index, file)) {
        tests.push(test);
        named.add(test.name);
      }
      continue;
    }
    const failure = JEST_FAILURE.exec(line);
    const title = failure?.[1];
    if (!title || title === "Console" || title === "Test suite failed to run") continue;
    const name = nameInSuites([], title.split(" › ").join(SUITE_SEPARATOR), file);
    if (!named.has(name)) tests.push({ name, state: "failed" });
    named.add(name);
  }
  const focused = lines.some((line) => JEST_FILTERED.test(line));
  return makeInventory({ runner: "jest", tests, counts, focused });
}

const MOCHA_COUNT = /^\s+(\d+) (passing|pending|failing)\b/;
const MOCHA_PASSED = /^(\s*)[✔✓]\s+(.+?)\s*$/;
const MOCHA_FAILED = /^(\s*)\d+\) (.+?)\s*$/;
const MOCHA_PENDING = /^(\s*)- (.+?)\s*$/;
const MOCHA_NO_FILES = /^\s*Error: No test files found/;
const MOCHA_FORBIDDEN_ONLY = /`\.only` forbidden|ERR_MOCHA_FORBIDDEN_EXCLUSIVITY/;

function readMochaTest(
  line: string,
): { indent: number; name: string; state: TestState } | undefined {
  const passed = MOCHA_PASSED.exec(line);
  if (passed)
    return { indent: indentOf(line), name: stripDuration(passed[2] as string), state: "passed" };
  const failed = MOCHA_FAILED.exec(line);
  if (failed) return { indent: indentOf(line), name: failed[2] as string, state: "failed" };
  const pending = MOCHA_PENDING.exec(line);
  if (pending) return { indent: indentOf(line), name: pending[2] as string, state: "skipped" };
  return undefined;
}

/**
 * The spec reporter's tree, which ends where the `N passing` summary starts. It
 * is indented by at least 2 spaces; unindented lines are someone else's (npm's `> mocha`).
 */
function readMochaTree(lines: readonly string[], end: number): InventoryTest[] {
  const tests: InventoryTest[] = [];
  const suites: SuiteEntry[] = [];
  for (const line of lines.slice(0, end)) {
    const indent = indentOf(line);
    if (line.trim() === "" || indent < 2) continue;
    leaveSuites(suites, indent);
    const test = readMochaTest(line);
    if (test) tests.push({ name: nameInSuites(suites, test.name), state: test.state });
    else suites.push({ indent, name: line.trim() });
  }
  return tests;
}

export function readMochaInventory(lines: readonly string[]): TestInventory | undefined {
  const summaryAt = lines.findIndex((line) => MOCHA_COUNT.exec(line)?.[2] === "passing");
  const focused = lines.some((line) => MOCHA_FORBIDDEN_ONLY.test(line));
  if (summaryAt === -1) {
    if (!focused && !lines.some((line) => MOCHA_NO_FILES.test(line))) return undefined;
    const counts = focused ? undefined : ZERO_COUNTS;
    return makeInventory({ runner: "mocha", tests: [], counts, focused });
  }
  const byWord = new Map<string, number>();
  for (const line of lines.slice(summaryAt)) {
    const count = MOCHA_COUNT.exec(line);
    if (count) byWord.set(count[2] as string, Number(count[1]));
  }
  const counts = {
    passed: sumOf(byWord, ["passing"]),
    failed: sumOf(byWord, ["failing"]),
    skipped: sumOf(byWord, ["pending"]),
    todo: 0,
  };
  return makeInventory({
    runner: "mocha",
    tests: readMochaTree(lines, summaryAt),
    counts,
    focused,
  });
}
