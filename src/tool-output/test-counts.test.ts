import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { TestRunner } from "../ports/test-inventory.js";
import { countTests, parseTestInventory } from "./test-inventory.js";
import { parseTestOutput } from "./test-output.js";

/*
 * fixtures/default-reporters/ holds the real output (stdout, then stderr) of
 * each runner with its default configuration on a 2-test project (`adds`,
 * `subtracts`): `-pass` both pass, `-fail` `subtracts` fails. `-mixed` adds a
 * skipped test (and for ava a todo test, an expected failure and a second
 * file; for node-tap a test of three assertions and a second file). `-plain`
 * ran with NO_COLOR=1, `-color` with colour forced (uvu colours even when not
 * a terminal). Versions: uvu 0.5, ava 7.0, tap 21.8 (not a terminal: TAP),
 * mocha 12, jest 30, vitest 4.1, node 20.20 (`node --test`, not a terminal:
 * TAP), pytest 9.0, cargo 1.95. go and deno were not at hand: their counts
 * are proven on the fixtures of fixtures/inventory/.
 */
const defaultsDir = new URL("./fixtures/default-reporters/", import.meta.url);
const inventoryDir = new URL("./fixtures/inventory/", import.meta.url);
const read = (dir: URL, name: string) => readFileSync(new URL(name, dir), "utf8");

/** Per fixture: the runner, `[passed, failed, skipped, todo]`, and the failed tests it names. */
const expectations: Record<string, [TestRunner, [number, number, number, number], string[]]> = {
  "uvu-pass-plain.txt": ["uvu", [2, 0, 0, 0], []],
  "uvu-fail-plain.txt": ["uvu", [1, 1, 0, 0], ["subtracts"]],
  "uvu-fail-color.txt": ["uvu", [1, 1, 0, 0], ["subtracts"]],
  "ava-pass-plain.txt": ["ava", [2, 0, 0, 0], []],
  "ava-fail-plain.txt": ["ava", [1, 1, 0, 0], ["subtracts"]],
  "ava-fail-color.txt": ["ava", [1, 1, 0, 0], ["subtracts"]],
  "ava-mixed-plain.txt": ["ava", [2, 1, 2, 1], ["math > subtracts"]],
  "tap-pass-plain.txt": ["tap", [2, 0, 0, 0], []],
  "tap-fail-plain.txt": ["tap", [1, 1, 0, 0], ["math.test.js > subtracts > should be equal"]],
  "tap-mixed-plain.txt": ["tap", [8, 0, 2, 0], []],
  "mocha-pass-plain.txt": ["mocha", [2, 0, 0, 0], []],
  "mocha-fail-plain.txt": ["mocha", [1, 1, 0, 0], ["subtracts"]],
  "jest-pass-plain.txt": ["jest", [2, 0, 0, 0], []],
  "jest-fail-plain.txt": ["jest", [1, 1, 0, 0], ["subtracts"]],
  "vitest-pass-plain.txt": ["vitest", [2, 0, 0, 0], []],
  "vitest-pass-color.txt": ["vitest", [2, 0, 0, 0], []],
  "vitest-fail-plain.txt": ["vitest", [1, 1, 0, 0], ["subtracts"]],
  "vitest-fail-color.txt": ["vitest", [1, 1, 0, 0], ["subtracts"]],
  "node-test-tap-pass-plain.txt": ["tap", [2, 0, 0, 0], []],
  "node-test-tap-fail-plain.txt": ["tap", [1, 1, 0, 0], ["subtracts"]],
  "pytest-pass-plain.txt": ["pytest", [2, 0, 0, 0], []],
  "pytest-fail-plain.txt": ["pytest", [1, 1, 0, 0], ["test_subtracts"]],
  "cargo-pass-plain.txt": ["cargo", [2, 0, 0, 0], []],
  "cargo-fail-plain.txt": ["cargo", [1, 1, 0, 0], ["tests::subtracts"]],
};

describe("the count of tests of each runner's default output", () => {
  it.each(Object.entries(expectations))("%s", (fixture, [runner, counts, failedNames]) => {
    const text = read(defaultsDir, fixture);
    const inventory = parseTestInventory(text);
    const [passed, failed, skipped, todo] = counts;
    expect(inventory?.runner).toBe(runner);
    expect(inventory?.counts).toEqual({ passed, failed, skipped, todo });
    expect(inventory && countTests(inventory)).toBe(passed + failed + skipped + todo);
    expect(parseTestOutput(text).map((test) => test.name)).toEqual(failedNames);
  });

  it("has an expectation for every fixture", () => {
    expect(readdirSync(defaultsDir).sort()).toEqual(Object.keys(expectations).sort());
  });

  it("counts summaries that name no test: vitest's, pytest's and uvu's default output", () => {
    for (const fixture of [
      "vitest-pass-plain.txt",
      "pytest-pass-plain.txt",
      "uvu-pass-plain.txt",
    ]) {
      const inventory = parseTestInventory(read(defaultsDir, fixture));
      expect(inventory?.tests).toEqual([]);
      expect(inventory && countTests(inventory)).toBe(2);
    }
  });

  it("reads go and deno from their summaries, and says so when go's plain output does not count", () => {
    const count = (fixture: string) => {
      const inventory = parseTestInventory(read(inventoryDir, fixture));
      return inventory && countTests(inventory);
    };
    expect(count("go-test-verbose-skips-plain.txt")).toBe(5);
    expect(count("go-test-json-skips-plain.txt")).toBe(5);
    // Plain `go test` prints `ok  example.com/mathx 0.01s`: how many ran is unknown.
    expect(count("go-test-skips-plain.txt")).toBeUndefined();
    expect(count("deno-test-skips-plain.txt")).toBe(6);
    expect(count("cargo-test-quiet-plain.txt")).toBe(4);
  });

  it("counts vitest's summary whether or not its colours were stripped", () => {
    const text = " Test Files  1 passed (1)\n      Tests  2 passed (2)\n";
    const inventory = parseTestInventory(text);
    expect(inventory && countTests(inventory)).toBe(2);
  });
});
