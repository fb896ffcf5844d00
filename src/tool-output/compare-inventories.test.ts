import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { InventoryTest, TestInventory, TestState } from "../ports/test-inventory.js";
import { compareInventories } from "./compare-inventories.js";
import { countStates } from "./inventory-test.js";
import { parseTestInventory } from "./test-inventory.js";

const inventoryDir = new URL("./fixtures/inventory/", import.meta.url);

function readInventory(fixture: string): TestInventory {
  const inventory = parseTestInventory(readFileSync(new URL(fixture, inventoryDir), "utf8"));
  if (!inventory) throw new Error(`${fixture} is not a test run`);
  return inventory;
}

/** A complete inventory whose counts are those of its tests, as a verbose reporter gives it. */
function listed(tests: Record<string, TestState>, focused = false): TestInventory {
  const list: InventoryTest[] = Object.entries(tests).map(([name, state]) => ({ name, state }));
  return {
    runner: "vitest",
    tests: list,
    counts: countStates(list),
    complete: true,
    ...(focused ? { focused } : {}),
  };
}

/** An inventory with counts only, as a default reporter gives it. */
function counted(passed: number, failed: number, skipped = 0): TestInventory {
  return {
    runner: "jest",
    tests: [],
    counts: { passed, failed, skipped, todo: 0 },
    complete: false,
  };
}

const BASELINE = listed({ adds: "passed", subtracts: "passed", divides: "failed", later: "todo" });

describe("compareInventories by names", () => {
  it("loses nothing when the same tests run again", () => {
    expect(compareInventories(BASELINE, BASELINE)).toEqual({
      lost: false,
      comparedBy: "names",
      missing: [],
      newlySkipped: [],
      ranBefore: 3,
      ranNow: 3,
      skippedBefore: 1,
      skippedNow: 1,
      focused: false,
      noTestsRan: false,
    });
  });

  it("finds a deleted test", () => {
    const now = listed({ adds: "passed", divides: "failed", later: "todo" });
    expect(compareInventories(BASELINE, now)).toMatchObject({
      lost: true,
      missing: ["subtracts"],
      ranNow: 2,
    });
  });

  it("finds a test that is skipped now", () => {
    const now = listed({ adds: "passed", subtracts: "passed", divides: "skipped", later: "todo" });
    expect(compareInventories(BASELINE, now)).toMatchObject({
      lost: true,
      missing: [],
      newlySkipped: ["divides"],
    });
  });

  it("counts a renamed test as missing even though as many tests ran", () => {
    const now = listed({ adds: "passed", subtracts: "passed", "divides safely": "passed" });
    const loss = compareInventories(BASELINE, now);
    expect(loss).toMatchObject({ lost: true, missing: ["divides", "later"], ranNow: 3 });
  });

  it("knows a test named from a random number, a timestamp or a date under its new number (is-number's tests)", () => {
    const named = (random: string, now: string, date: string) =>
      listed({
        [`is a number > ${random} should be a number`]: "passed",
        [`is a number > ${now} should be a number`]: "passed",
        [`is not a number > "${date}" should not be a number`]: "passed",
      });
    const before = named("0.09770327253273381", "1795909311494", "2026-11-28T23:41:51.495Z");
    const again = named("0.5512", "1795909399001", "2026-11-29T00:02:07.100Z");
    expect(compareInventories(before, again)).toMatchObject({ lost: false, missing: [] });
    const gone = listed({ "is a number > 0.5512 should be a number": "passed" });
    expect(compareInventories(before, gone)).toMatchObject({
      lost: true,
      missing: [
        "is a number > 1795909311494 should be a number",
        'is not a number > "2026-11-28T23:41:51.495Z" should not be a number',
      ],
    });
  });

  it("does not count an honestly added test, even a skipped one, as a loss", () => {
    const now = listed({
      ...Object.fromEntries(BASELINE.tests.map((t) => [t.name, t.state])),
      multiplies: "passed",
      squares: "skipped",
    });
    expect(compareInventories(BASELINE, now)).toMatchObject({ lost: false, ranNow: 4 });
  });

  it("does not count a fixed failing test, nor a todo that now runs, as a loss", () => {
    const now = listed({ adds: "passed", subtracts: "passed", divides: "passed", later: "passed" });
    expect(compareInventories(BASELINE, now)).toMatchObject({ lost: false, ranNow: 4 });
  });

  it("finds a focus that appeared, and ignores one the baseline had too", () => {
    const focused = listed(
      { adds: "passed", subtracts: "passed", divides: "failed", later: "todo" },
      true,
    );
    expect(compareInventories(BASELINE, focused)).toMatchObject({ lost: true, focused: true });
    expect(compareInventories(focused, focused)).toMatchObject({ lost: false, focused: false });
  });
});

describe("compareInventories by counts", () => {
  it("compares counts when either listing is incomplete", () => {
    expect(compareInventories(counted(3, 1), counted(3, 1))).toMatchObject({
      lost: false,
      comparedBy: "counts",
    });
    expect(compareInventories(counted(3, 1), counted(4, 0))).toMatchObject({ lost: false });
    expect(compareInventories(counted(3, 1), counted(3, 0))).toMatchObject({
      lost: true,
      ranBefore: 4,
      ranNow: 3,
    });
    expect(compareInventories(BASELINE, counted(3, 0, 1))).toMatchObject({
      lost: false,
      comparedBy: "counts",
    });
  });

  it("counts more skipped tests as a loss: counts cannot tell a new skip from an old test skipped", () => {
    expect(compareInventories(counted(3, 0), counted(3, 0, 1))).toMatchObject({
      lost: true,
      skippedBefore: 0,
      skippedNow: 1,
    });
  });

  it("still names tests skipped now that both listings name", () => {
    const now = {
      ...listed({ adds: "skipped" }),
      counts: { passed: 2, failed: 1, skipped: 1, todo: 1 },
      complete: false,
    };
    expect(compareInventories(BASELINE, now)).toMatchObject({ lost: true, newlySkipped: ["adds"] });
  });

  it("does not guess when a runner did not count its tests (go test without -v)", () => {
    const goPlain = readInventory("go-test-skips-plain.txt");
    expect(compareInventories(goPlain, goPlain)).toMatchObject({
      lost: false,
      ranBefore: undefined,
      ranNow: undefined,
      noTestsRan: false,
    });
    expect(compareInventories(goPlain, readInventory("go-test-empty-plain.txt"))).toMatchObject({
      lost: true,
      noTestsRan: true,
    });
  });
});

describe("compareInventories when no tests ran", () => {
  it("counts a test script that prints no test run as a loss", () => {
    expect(compareInventories(BASELINE, parseTestInventory(""))).toEqual({
      lost: true,
      comparedBy: "counts",
      missing: [],
      newlySkipped: [],
      ranBefore: 3,
      ranNow: 0,
      skippedBefore: 1,
      skippedNow: 0,
      focused: false,
      noTestsRan: true,
    });
  });

  it("counts a run without tests as a loss, unless the baseline ran none either", () => {
    const empty = readInventory("node-test-spec-empty-plain.txt");
    expect(
      compareInventories(readInventory("node-test-spec-skips-plain.txt"), empty),
    ).toMatchObject({
      lost: true,
      noTestsRan: true,
      missing: [
        "math > adds numbers",
        "math > nested > subtracts numbers",
        "multiplies numbers",
        "divides numbers",
      ],
    });
    expect(compareInventories(empty, empty)).toMatchObject({ lost: false, noTestsRan: true });
    expect(compareInventories(empty, parseTestInventory(""))).toMatchObject({ lost: true });
  });
});

describe("compareInventories on real runs", () => {
  it("vitest: .only skips a test while as many tests pass", () => {
    const loss = compareInventories(
      readInventory("vitest-verbose-skips-plain.txt"),
      readInventory("vitest-verbose-only-plain.txt"),
    );
    expect(loss).toMatchObject({
      lost: true,
      missing: [],
      newlySkipped: ["math.test.mjs > math > nested > subtracts numbers"],
      ranBefore: 2,
      ranNow: 2,
    });
  });

  it("mocha: .only leaves the other tests out of the listing", () => {
    const loss = compareInventories(
      readInventory("mocha-skips-plain.txt"),
      readInventory("mocha-only-plain.txt"),
    );
    expect(loss).toMatchObject({
      lost: true,
      missing: ["multiplies numbers", "divides numbers", "math > nested > subtracts numbers"],
      ranNow: 1,
    });
  });

  it("pytest: -k deselects tests, seen by names with -v and by counts without", () => {
    expect(
      compareInventories(
        readInventory("pytest-verbose-skips-plain.txt"),
        readInventory("pytest-verbose-deselected-plain.txt"),
      ),
    ).toMatchObject({ lost: true, comparedBy: "names", focused: true, ranNow: 1 });
    expect(
      compareInventories(
        readInventory("pytest-skips-plain.txt"),
        readInventory("pytest-deselected-plain.txt"),
      ),
    ).toMatchObject({ lost: true, comparedBy: "counts", focused: true, ranBefore: 4, ranNow: 1 });
  });

  it("node:test, cargo and deno: a focus or filter shows", () => {
    const pairs = [
      ["node-test-tap-skips-plain.txt", "node-test-tap-only-plain.txt"],
      ["node-test-spec-skips-plain.txt", "node-test-spec-only-hint-plain.txt"],
      ["cargo-test-skips-plain.txt", "cargo-test-filtered-plain.txt"],
      ["deno-test-skips-plain.txt", "deno-test-only-plain.txt"],
    ] as const;
    for (const [baseline, now] of pairs) {
      expect(compareInventories(readInventory(baseline), readInventory(now))).toMatchObject({
        lost: true,
        focused: true,
      });
    }
  });
});

describe("compareInventories on any inventories", () => {
  const state = fc.constantFrom<TestState>("passed", "failed", "skipped", "todo");
  const names = ["a", "b", "c", "d", "e", "f", "g", "h"];
  const tests = fc.uniqueArray(fc.record({ name: fc.constantFrom(...names), state }), {
    selector: (test) => test.name,
    maxLength: names.length,
  });
  const inventory = fc
    .record({ tests, complete: fc.boolean(), counted: fc.boolean(), focused: fc.boolean() })
    .map(
      ({ tests: list, complete, counted: hasCounts, focused }): TestInventory => ({
        runner: "tap",
        tests: list,
        ...(complete || hasCounts ? { counts: countStates(list) } : {}),
        complete,
        ...(focused ? { focused } : {}),
      }),
    );

  it("never finds a loss in a run compared with itself", () => {
    fc.assert(
      fc.property(inventory, (run) => {
        expect(compareInventories(run, run).lost).toBe(false);
      }),
    );
  });

  it("never turns into a loss when tests that run are added", () => {
    const ran = fc.constantFrom<TestState>("passed", "failed");
    fc.assert(
      fc.property(inventory, inventory, fc.array(ran, { maxLength: 3 }), (baseline, now, added) => {
        const fresh = names.filter((name) => !now.tests.some((test) => test.name === name));
        const extra = added
          .slice(0, fresh.length)
          .map((s, index) => ({ name: fresh[index] as string, state: s }));
        const grown: TestInventory = {
          ...now,
          tests: [...now.tests, ...extra],
          ...(now.counts ? { counts: countStates([...now.tests, ...extra]) } : {}),
        };
        if (!compareInventories(baseline, now).lost) {
          expect(compareInventories(baseline, grown).lost).toBe(false);
        }
      }),
    );
  });
});
