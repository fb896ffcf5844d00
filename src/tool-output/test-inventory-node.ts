/** Test inventories from `node --test` (spec reporter) and from TAP (node's tap reporter and others). */

import type {
  InventoryTest,
  TestCounts,
  TestInventory,
  TestState,
} from "../ports/test-inventory.js";
import { SUITE_SEPARATOR } from "./failed-test.js";
import { countStates, makeInventory, sumOf } from "./inventory-test.js";
import { leaveSuites, nameInSuites, type SuiteEntry } from "./suite-stack.js";
import { readTapPoints } from "./test-output-node.js";

/** node:test's hint that `.only` was written but `--test-only` was not given, and its skip reason when it was. */
const NODE_ONLY = /'only' and 'runOnly' require the --test-only|'only' option not set/;

const SPEC_LINE = /^(\s*)([▶✔✖﹣]) (.+)$/;
/** `name (1.2ms)`, then an optional directive: `# TODO`, `# SKIP`, or a skip reason. */
const SPEC_RESULT = /^(.*?)\s*\(\d+(?:\.\d+)?ms\)(?:\s+#\s*(.*))?\s*$/;
const SPEC_COUNT = /^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)\s*$/;
const SPEC_FAILING_TESTS = /^\s*✖ failing tests:\s*$/;

function specState(mark: string, directive: string): TestState {
  if (mark === "﹣") return "skipped";
  if (/^TODO\b/i.test(directive)) return "todo";
  return mark === "✖" ? "failed" : "passed";
}

/** node:test's `tests/pass/fail/…` summary, from `ℹ` (spec) or `#` (TAP) lines. */
function readNodeCounts(byWord: ReadonlyMap<string, number>): TestCounts {
  return {
    passed: sumOf(byWord, ["pass"]),
    failed: sumOf(byWord, ["fail", "cancelled"]),
    skipped: sumOf(byWord, ["skipped", "skip"]),
    todo: sumOf(byWord, ["todo"]),
  };
}

export function readNodeSpecInventory(lines: readonly string[]): TestInventory | undefined {
  const byWord = new Map<string, number>();
  for (const line of lines) {
    const count = SPEC_COUNT.exec(line);
    if (count) byWord.set(count[1] as string, Number(count[2]));
  }
  if (!byWord.has("tests")) return undefined;
  const tests: InventoryTest[] = [];
  const suites: SuiteEntry[] = [];
  for (const line of lines) {
    if (SPEC_FAILING_TESTS.test(line)) break;
    const match = SPEC_LINE.exec(line);
    const result = match && SPEC_RESULT.exec(match[3] as string);
    const indent = (match?.[1] ?? "").length;
    if (match?.[2] === "▶" && !result) {
      leaveSuites(suites, indent);
      suites.push({ indent, name: (match[3] as string).trim() });
      continue;
    }
    if (!match || !result) continue;
    const name = result[1] as string;
    const top = suites.at(-1);
    if (top?.indent === indent && top.name === name && match[2] !== "﹣") {
      suites.pop(); // the suite's own closing line
      continue;
    }
    leaveSuites(suites, indent);
    const state = specState(match[2] as string, result[2] ?? "");
    tests.push({ name: nameInSuites(suites, name), state });
  }
  const focused = lines.some((line) => NODE_ONLY.test(line));
  return makeInventory({ runner: "node-test", tests, counts: readNodeCounts(byWord), focused });
}

const TAP_VERSION = /^TAP version \d+\s*$/;
const TAP_PLAN = /^\s*1\.\.\d+\b/;
const TAP_COUNT = /^# (tests|pass|fail|cancelled|skipped|skip|todo) (\d+)\s*$/;

function tapState(ok: boolean, directive: string | undefined): TestState {
  if (directive === "SKIP") return "skipped";
  if (directive === "TODO") return "todo";
  return ok ? "passed" : "failed";
}

function readTapTests(lines: readonly string[], leavesOnly: boolean): InventoryTest[] {
  return readTapPoints(lines)
    .filter((point) => point.fields.get("type") !== "suite") // node:test reports each suite too
    .filter((point) => !(leavesOnly && point.parent))
    .map((point) => ({
      name: [...point.suites, point.title].join(SUITE_SEPARATOR),
      state: tapState(point.ok, point.directive),
    }));
}

/** node-tap's closing summary, which counts its test points (assertions included): `# { total: 2, pass: 1, fail: 1 }`. */
const NODE_TAP_SUMMARY = /^# \{ total: \d+((?:, [a-z]+: \d+)*) \}\s*$/;

function readNodeTapCounts(lines: readonly string[]): TestCounts | undefined {
  const summary = lines.map((line) => NODE_TAP_SUMMARY.exec(line)).find(Boolean);
  if (!summary) return undefined;
  const byWord = new Map<string, number>();
  for (const part of (summary[1] as string).split(", ")) {
    const [word, count] = part.split(": ");
    if (word && count) byWord.set(word, Number(count));
  }
  return readNodeCounts(byWord);
}

/**
 * TAP lists every test point; its `# tests`/`# pass`/… comments, when present,
 * are the summary. node-tap's own summary counts the points that close no
 * subtest, so those are the tests listed then.
 */
export function readTapInventory(lines: readonly string[]): TestInventory | undefined {
  if (!lines.some((line) => TAP_VERSION.test(line) || TAP_PLAN.test(line))) return undefined;
  const nodeTapCounts = readNodeTapCounts(lines);
  const tests = readTapTests(lines, nodeTapCounts !== undefined);
  const byWord = new Map<string, number>();
  for (const line of lines) {
    const count = TAP_COUNT.exec(line);
    if (count) byWord.set(count[1] as string, Number(count[2]));
  }
  const counts =
    nodeTapCounts ?? (byWord.has("tests") ? readNodeCounts(byWord) : countStates(tests));
  const focused = lines.some((line) => NODE_ONLY.test(line));
  return makeInventory({ runner: "tap", tests, counts, focused });
}
