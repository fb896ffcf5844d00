/** Test inventories from uvu and ava (their default reporters). */

import type {
  InventoryTest,
  TestCounts,
  TestInventory,
  TestState,
} from "../ports/test-inventory.js";
import { SUITE_SEPARATOR, stripDuration } from "./failed-test.js";
import { countStates, makeInventory, ZERO_COUNTS } from "./inventory-test.js";
import { UVU_FAILURE } from "./test-output-js.js";

/** uvu's closing summary: `Total:     2`, `Passed:    1`, `Skipped:   0`, `Duration:  0.85ms`. */
const UVU_SUMMARY = /^\s+(Total|Passed|Skipped):\s+(\d+)\s*$/;
const UVU_DURATION = /^\s+Duration:\s+\d/;

/**
 * uvu prints a dot per passing test and names only failures; its summary counts
 * the tests that ran (`Total`), those that passed, and the skipped ones apart.
 */
export function readUvuInventory(lines: readonly string[]): TestInventory | undefined {
  if (!lines.some((line) => UVU_DURATION.test(line))) return undefined;
  const byWord = new Map<string, number>();
  for (const line of lines) {
    const part = UVU_SUMMARY.exec(line);
    if (part) byWord.set(part[1] as string, Number(part[2]));
  }
  const total = byWord.get("Total");
  const passed = byWord.get("Passed");
  if (total === undefined || passed === undefined) return undefined;
  const tests: InventoryTest[] = [];
  for (const line of lines) {
    const failure = UVU_FAILURE.exec(line);
    if (!failure) continue;
    const name = [failure[1], failure[2] as string].filter(Boolean).join(SUITE_SEPARATOR);
    tests.push({ name, state: "failed" });
  }
  const counts = {
    passed,
    failed: Math.max(0, total - passed),
    skipped: byWord.get("Skipped") ?? 0,
    todo: 0,
  };
  return makeInventory({ runner: "uvu", tests, counts, focused: false });
}

/** `✔ file › test`, `✘ [fail]: test message`, `- [skip] test`, `- [todo] test`, `✔ [expected fail] test`. */
const AVA_LISTED = /^\s+(✔|✘|-) (?:\[([a-z ]+)\]:? )?(\S.*?)\s*$/;
/** `2 tests passed`, `1 test failed`, `1 known failure`, `1 test skipped`, `1 test todo`. */
const AVA_SUMMARY = /^\s+(\d+) (?:tests? (passed|failed|skipped|todo)|(known failure)s?)\s*$/;
const AVA_NO_FILES = /^\s*✘ Couldn't find any files to test/;
const AVA_ONLY = /\.only\(\) modifier/;

function avaState(mark: string, tag: string | undefined): TestState | undefined {
  if (tag === "skip") return "skipped";
  if (tag === "todo") return "todo";
  if (tag === "expected fail") return "skipped";
  if (mark === "✘") return "failed";
  return mark === "✔" && tag === undefined ? "passed" : undefined;
}

/** ava's failure reports repeat each failed test's title alone on a line, where its listing may add a message. */
function avaName(listed: string, state: TestState, titles: ReadonlySet<string>): string {
  if (state !== "failed" || titles.has(listed)) return listed;
  const title = [...titles]
    .filter((candidate) => listed.startsWith(`${candidate} `))
    .sort((left, right) => right.length - left.length)[0];
  return title ?? listed;
}

function readAvaCounts(lines: readonly string[]): Map<string, number> {
  const byWord = new Map<string, number>();
  for (const line of lines) {
    const part = AVA_SUMMARY.exec(line);
    if (part) byWord.set((part[2] ?? part[3]) as string, Number(part[1]));
  }
  return byWord;
}

/** ava lists every test by default (` › ` joins file and title); its summary counts what did not pass. */
export function readAvaInventory(lines: readonly string[]): TestInventory | undefined {
  const byWord = readAvaCounts(lines);
  const noFiles = lines.some((line) => AVA_NO_FILES.test(line));
  if (byWord.size === 0 && !noFiles) return undefined;
  const titles = new Set(lines.map((line) => line.trim()));
  const tests: InventoryTest[] = [];
  for (const line of lines) {
    const listed = AVA_LISTED.exec(line);
    const state = listed && avaState(listed[1] as string, listed[2]);
    if (!listed || !state) continue;
    const name = avaName(stripDuration(listed[3] as string), state, titles);
    tests.push({ name: name.split(" › ").join(SUITE_SEPARATOR), state });
  }
  const listedCounts = countStates(tests);
  const word = (name: string, fallback: number) => byWord.get(name) ?? fallback;
  const counts: TestCounts = noFiles
    ? ZERO_COUNTS
    : {
        passed: word("passed", listedCounts.passed),
        failed: word("failed", listedCounts.failed),
        skipped: word("skipped", 0) + word("known failure", 0),
        todo: word("todo", listedCounts.todo),
      };
  const focused = lines.some((line) => AVA_ONLY.test(line));
  return makeInventory({ runner: "ava", tests, counts, focused });
}
