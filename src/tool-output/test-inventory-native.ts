/** Test inventories from pytest, cargo test and deno test. */

import type {
  InventoryTest,
  TestCounts,
  TestInventory,
  TestState,
} from "../ports/test-inventory.js";
import { stripDuration } from "./failed-test.js";
import { addCounts, makeInventory, readCountParts, sumOf, ZERO_COUNTS } from "./inventory-test.js";
import { leaveSuites, nameInSuites, type SuiteEntry } from "./suite-stack.js";

const PYTEST_STATES: Readonly<Record<string, TestState>> = {
  PASSED: "passed",
  XPASS: "passed",
  FAILED: "failed",
  ERROR: "failed",
  SKIPPED: "skipped",
  XFAIL: "skipped",
};
const PYTEST_WORD = "(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)";
/** `-v`: `tests/test_x.py::test_add PASSED  [ 50%]`, a reason in parentheses after SKIPPED/XFAIL. */
const PYTEST_VERBOSE = new RegExp(
  `^(\\S.*?\\.py::.+?) ${PYTEST_WORD}(?: \\(.*\\))?(?:\\s+\\[\\s*\\d+%\\])?\\s*$`,
);
/** `-v` under pytest-xdist: `[gw0] [ 50%] PASSED tests/test_x.py::test_add`. */
const PYTEST_XDIST = new RegExp(
  `^(?:\\[gw\\d+\\] )?\\[\\s*\\d+%\\] ${PYTEST_WORD} (\\S.*?\\.py::.+?)\\s*$`,
);
/** The short test summary (`-r`): `FAILED tests/test_x.py::test_add - assert 1 == 2`. */
const PYTEST_REPORT = new RegExp(`^${PYTEST_WORD} (\\S.*?\\.py(?:::.+?)?)(?: - .*)?\\s*$`);
/** `=== 1 failed, 3 passed, 2 deselected in 0.1s ===`, `4 passed in 1.08s` (-q), `no tests ran in 0.01s`. */
const PYTEST_SUMMARY = /^=*\s*((?:\d+ [a-z]+(?:, )?)+|no tests ran) in \d+(?:\.\d+)?s\b.*?=*\s*$/;

function pytestTest(name: string | undefined, word: string | undefined): InventoryTest {
  return { name: name ?? "", state: PYTEST_STATES[word ?? ""] ?? "failed" };
}

function readPytestTests(lines: readonly string[]): InventoryTest[] {
  const listed: InventoryTest[] = [];
  const reported: InventoryTest[] = [];
  for (const line of lines) {
    const verbose = PYTEST_VERBOSE.exec(line);
    const xdist = PYTEST_XDIST.exec(line);
    const report = PYTEST_REPORT.exec(line);
    if (verbose) listed.push(pytestTest(verbose[1], verbose[2]));
    else if (xdist) listed.push(pytestTest(xdist[2], xdist[1]));
    else if (report) reported.push(pytestTest(report[2], report[1]));
  }
  // The short summary repeats what `-v` listed; without `-v` it is all there is.
  return listed.length > 0 ? listed : reported;
}

export function readPytestInventory(lines: readonly string[]): TestInventory | undefined {
  let byWord: Map<string, number> | undefined;
  for (const line of lines) {
    const summary = PYTEST_SUMMARY.exec(line);
    if (summary) byWord = readCountParts((summary[1] as string).split(","));
  }
  if (!byWord) return undefined;
  const counts = {
    passed: sumOf(byWord, ["passed", "xpassed"]),
    failed: sumOf(byWord, ["failed", "error", "errors"]),
    skipped: sumOf(byWord, ["skipped", "xfailed"]),
    todo: 0,
  };
  const focused = sumOf(byWord, ["deselected"]) > 0;
  return makeInventory({ runner: "pytest", tests: readPytestTests(lines), counts, focused });
}

const CARGO_TEST = /^test (\S.*?) \.\.\. (ok|FAILED|ignored)\b/;
const CARGO_SUMMARY =
  /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; \d+ measured; (\d+) filtered out/;
const CARGO_STATES: Readonly<Record<string, TestState>> = {
  ok: "passed",
  FAILED: "failed",
  ignored: "skipped",
};

/** Each test binary (unit tests, each integration test, doc-tests) prints its own `test result:` line. */
export function readCargoInventory(lines: readonly string[]): TestInventory | undefined {
  let counts: TestCounts | undefined;
  let filteredOut = 0;
  const tests: InventoryTest[] = [];
  for (const line of lines) {
    const test = CARGO_TEST.exec(line);
    if (test)
      tests.push({ name: test[1] as string, state: CARGO_STATES[test[2] as string] ?? "failed" });
    const summary = CARGO_SUMMARY.exec(line);
    if (!summary) continue;
    const [passed, failed, skipped, filtered] = summary.slice(1).map(Number);
    counts = addCounts(counts ?? ZERO_COUNTS, { passed, failed, skipped });
    filteredOut += filtered ?? 0;
  }
  if (!counts) return undefined;
  return makeInventory({ runner: "cargo", tests, counts, focused: filteredOut > 0 });
}

const DENO_RUNNING = /^running \d+ tests? from (\S+)/;
const DENO_OPEN = /^(\s*)(\S.*?) \.\.\.\s*$/;
const DENO_RESULT = /^(\s*)(\S.*?) \.\.\. (ok|FAILED|ignored)\b/;
const DENO_UNCAUGHT = /^Uncaught error from (\S+) FAILED\s*$/;
const DENO_SUMMARY = /^(?:ok|FAILED) \| (.+)$/;
const DENO_PART = /^(\d+) ([a-z ]+?)(?: \((\d+) steps?\))?$/;
const DENO_STATES: Readonly<Record<string, TestState>> = {
  ok: "passed",
  FAILED: "failed",
  ignored: "skipped",
};

/** `ok | 2 passed (3 steps) | 1 failed | 1 ignored | 2 filtered out (14ms)`: tests and steps by word. */
function readDenoSummary(line: string): Map<string, number> | undefined {
  const summary = DENO_SUMMARY.exec(line);
  if (!summary) return undefined;
  const byWord = new Map<string, number>();
  for (const part of stripDuration(summary[1] as string).split(" | ")) {
    const match = DENO_PART.exec(part.trim());
    if (match) byWord.set(match[2] as string, Number(match[1]) + Number(match[3] ?? 0));
  }
  return byWord;
}

/** Tests and their steps, each named by file and step path; a step with steps of its own counts too. */
function readDenoTests(lines: readonly string[]): InventoryTest[] {
  const tests: InventoryTest[] = [];
  const open: SuiteEntry[] = [];
  let file: string | undefined;
  for (const line of lines) {
    if (/^\s*ERRORS\s*$/.test(line)) break;
    const running = DENO_RUNNING.exec(line);
    const uncaught = DENO_UNCAUGHT.exec(line);
    const opening = DENO_OPEN.exec(line);
    const result = DENO_RESULT.exec(line);
    if (running) file = running[1];
    if (uncaught) tests.push({ name: `${uncaught[1]} (uncaught error)`, state: "failed" });
    const indent = ((opening ?? result)?.[1] ?? "").length;
    if (opening) {
      leaveSuites(open, indent);
      open.push({ indent, name: opening[2] as string });
    }
    if (!result) continue;
    const name = result[2] as string;
    if (open.at(-1)?.indent === indent && open.at(-1)?.name === name) open.pop();
    leaveSuites(open, indent);
    tests.push({
      name: nameInSuites(open, name, file),
      state: DENO_STATES[result[3] as string] ?? "failed",
    });
  }
  return tests;
}

export function readDenoInventory(lines: readonly string[]): TestInventory | undefined {
  let byWord: Map<string, number> | undefined;
  for (const line of lines) byWord = readDenoSummary(line) ?? byWord;
  if (!byWord && !lines.some((line) => /^error: No test modules found/.test(line)))
    return undefined;
  const words = byWord ?? new Map<string, number>();
  const counts = {
    passed: sumOf(words, ["passed"]),
    failed: sumOf(words, ["failed"]),
    skipped: sumOf(words, ["ignored"]),
    todo: 0,
  };
  const focused =
    sumOf(words, ["filtered out"]) > 0 ||
    lines.some((line) => line.includes('the "only" option was used'));
  return makeInventory({ runner: "deno", tests: readDenoTests(lines), counts, focused });
}
