import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { InventoryTest, TestInventory, TestRunner } from "../ports/test-inventory.js";
import { parseTestInventory } from "./test-inventory.js";

/*
 * fixtures/inventory/ holds the real output (stdout, then stderr) of each runner
 * on one tiny project per runner: `math > adds numbers` and `math > nested >
 * subtracts numbers` pass, `multiplies numbers` is skipped, `divides numbers` is
 * todo where the runner has todo, and runners with several files or binaries
 * have one more passing test. `-only` fixtures focus `adds numbers`, `-empty`
 * ones ran no test. `-plain` ran with NO_COLOR=1, `-color` with FORCE_COLOR=1.
 * Versions: vitest 4.1, jest 30.5, mocha 12.0, node 20.20, pytest 9.0, go 1.19,
 * cargo 1.95, deno 2.9. The failing runs of fixtures/ (1 passing test, 2
 * failing) are read too.
 */
const fixturesDir = new URL("./fixtures/", import.meta.url);
const inventoryDir = new URL("./fixtures/inventory/", import.meta.url);
const readFixture = (name: string) => readFileSync(new URL(name, fixturesDir), "utf8");

const passed = (name: string): InventoryTest => ({ name, state: "passed" });
const failed = (name: string): InventoryTest => ({ name, state: "failed" });
const skipped = (name: string): InventoryTest => ({ name, state: "skipped" });
const todo = (name: string): InventoryTest => ({ name, state: "todo" });

/** An inventory with counts `[passed, failed, skipped, todo]`, complete when the names add up to them. */
function inventory(
  runner: TestRunner,
  tests: InventoryTest[],
  counts: [number, number, number, number] | undefined,
  flags: { complete: boolean; focused?: boolean },
): TestInventory {
  const [passedCount, failedCount, skippedCount, todoCount] = counts ?? [];
  return {
    runner,
    tests,
    ...(counts
      ? {
          counts: {
            passed: passedCount as number,
            failed: failedCount as number,
            skipped: skippedCount as number,
            todo: todoCount as number,
          },
        }
      : {}),
    complete: flags.complete,
    ...(flags.focused ? { focused: true } : {}),
  };
}
const COMPLETE = { complete: true };
const PARTIAL = { complete: false };
const FOCUSED = { complete: true, focused: true };
const PARTIAL_FOCUSED = { complete: false, focused: true };
const NONE: [number, number, number, number] = [0, 0, 0, 0];

const ADDS = "math > adds numbers";
const SUBTRACTS = "math > nested > subtracts numbers";
const vitestFile = (name: string) => `math.test.mjs > ${name}`;
const jestFile = (name: string) => `./math.test.js > ${name}`;
const denoFile = (name: string) => `./math_test.ts > ${name}`;
const goPackage = (name: string) => `example.com/mathx > ${name}`;
const pytestFile = (name: string) => `test_math.py::${name}`;

const nodeSkips = [passed(ADDS), passed(SUBTRACTS), skipped("multiplies numbers")];
const vitestVerboseSkips = inventory(
  "vitest",
  [
    passed(vitestFile(ADDS)),
    passed(vitestFile(SUBTRACTS)),
    skipped(vitestFile("multiplies numbers")),
    todo(vitestFile("divides numbers")),
  ],
  [2, 0, 1, 1],
  COMPLETE,
);
const jestVerboseSkips = inventory(
  "jest",
  [
    skipped(jestFile("multiplies numbers")),
    todo(jestFile("divides numbers")),
    passed(jestFile(ADDS)),
    passed(jestFile(SUBTRACTS)),
    passed("./other.test.js > concatenates strings"),
  ],
  [3, 0, 1, 1],
  COMPLETE,
);
const mochaSkips = inventory(
  "mocha",
  [skipped("multiplies numbers"), skipped("divides numbers"), passed(ADDS), passed(SUBTRACTS)],
  [2, 0, 2, 0],
  COMPLETE,
);
const nodeSpecSkips = inventory(
  "node-test",
  [...nodeSkips, todo("divides numbers")],
  [2, 0, 1, 1],
  COMPLETE,
);
const pytestVerboseSkips = inventory(
  "pytest",
  [
    passed(pytestFile("TestMath::test_adds_numbers")),
    passed(pytestFile("TestMath::test_subtracts_numbers")),
    skipped(pytestFile("test_multiplies_numbers")),
    skipped(pytestFile("test_divides_numbers")),
    passed(pytestFile("test_is_positive[1]")),
    passed(pytestFile("test_is_positive[2]")),
  ],
  [4, 0, 2, 0],
  COMPLETE,
);

const inventoryExpectations: Record<string, TestInventory> = {
  "vitest-verbose-skips-plain.txt": vitestVerboseSkips,
  "vitest-verbose-skips-color.txt": vitestVerboseSkips,
  "vitest-skips-plain.txt": inventory("vitest", [], [2, 0, 1, 1], PARTIAL),
  "vitest-verbose-failing-plain.txt": inventory(
    "vitest",
    [
      passed(vitestFile(ADDS)),
      failed(vitestFile(SUBTRACTS)),
      failed(vitestFile("divides by zero")),
    ],
    [1, 2, 0, 0],
    COMPLETE,
  ),
  "vitest-verbose-only-plain.txt": inventory(
    "vitest",
    [
      passed(vitestFile(ADDS)),
      skipped(vitestFile(SUBTRACTS)),
      skipped(vitestFile("multiplies numbers")),
      todo(vitestFile("divides numbers")),
      passed("other.test.mjs > concatenates strings"),
    ],
    [2, 0, 2, 1],
    COMPLETE,
  ),
  "vitest-only-ci-plain.txt": inventory(
    "vitest",
    [failed(vitestFile(ADDS))],
    [1, 1, 2, 1],
    PARTIAL_FOCUSED,
  ),
  "vitest-empty-plain.txt": inventory("vitest", [], NONE, COMPLETE),
  "vitest-verbose-empty-suite-plain.txt": inventory(
    "vitest",
    [failed("e.test.mjs > empty")],
    NONE,
    PARTIAL,
  ),
  "jest-verbose-skips-plain.txt": jestVerboseSkips,
  "jest-verbose-skips-color.txt": jestVerboseSkips,
  "jest-skips-plain.txt": inventory("jest", [], [3, 0, 1, 1], PARTIAL),
  "jest-verbose-only-plain.txt": inventory(
    "jest",
    [
      skipped(jestFile("multiplies numbers")),
      todo(jestFile("divides numbers")),
      passed(jestFile(ADDS)),
      skipped(jestFile(SUBTRACTS)),
      passed("./other.test.js > concatenates strings"),
    ],
    [2, 0, 2, 1],
    COMPLETE,
  ),
  "jest-verbose-name-filter-plain.txt": inventory(
    "jest",
    [
      skipped(jestFile("multiplies numbers")),
      skipped(jestFile("divides numbers")),
      passed(jestFile(ADDS)),
      skipped(jestFile(SUBTRACTS)),
    ],
    [1, 0, 4, 0],
    PARTIAL_FOCUSED,
  ),
  "jest-empty-plain.txt": inventory("jest", [], NONE, COMPLETE),
  "mocha-skips-plain.txt": mochaSkips,
  "mocha-skips-color.txt": mochaSkips,
  "mocha-only-plain.txt": inventory("mocha", [passed(ADDS)], [1, 0, 0, 0], COMPLETE),
  "mocha-forbid-only-plain.txt": inventory("mocha", [], undefined, PARTIAL_FOCUSED),
  "mocha-empty-plain.txt": inventory("mocha", [], NONE, COMPLETE),
  "mocha-no-files-plain.txt": inventory("mocha", [], NONE, COMPLETE),
  "node-test-spec-skips-plain.txt": nodeSpecSkips,
  "node-test-spec-skips-color.txt": nodeSpecSkips,
  "node-test-spec-only-hint-plain.txt": inventory("node-test", nodeSkips, [2, 0, 1, 0], FOCUSED),
  // The spec reporter prints a skipped suite like a test, so `math` is listed but not counted.
  "node-test-spec-only-plain.txt": inventory(
    "node-test",
    [skipped("math"), skipped("multiplies numbers")],
    [0, 0, 1, 0],
    PARTIAL_FOCUSED,
  ),
  "node-test-spec-empty-plain.txt": inventory("node-test", [], NONE, COMPLETE),
  "node-test-tap-skips-plain.txt": inventory(
    "tap",
    [...nodeSkips, todo("divides numbers")],
    [2, 0, 1, 1],
    COMPLETE,
  ),
  "node-test-tap-only-hint-plain.txt": inventory("tap", nodeSkips, [2, 0, 1, 0], FOCUSED),
  "node-test-tap-only-plain.txt": inventory(
    "tap",
    [skipped("multiplies numbers")],
    [0, 0, 1, 0],
    FOCUSED,
  ),
  "node-test-tap-empty-plain.txt": inventory("tap", [], NONE, COMPLETE),
  "pytest-verbose-skips-plain.txt": pytestVerboseSkips,
  "pytest-verbose-skips-color.txt": pytestVerboseSkips,
  "pytest-skips-plain.txt": inventory("pytest", [], [4, 0, 2, 0], PARTIAL),
  "pytest-quiet-skips-plain.txt": inventory("pytest", [], [4, 0, 2, 0], PARTIAL),
  // -rA names every outcome but a skip, which it reports by file and line.
  "pytest-quiet-report-all-plain.txt": inventory(
    "pytest",
    [
      passed(pytestFile("TestMath::test_adds_numbers")),
      passed(pytestFile("TestMath::test_subtracts_numbers")),
      passed(pytestFile("test_is_positive[1]")),
      passed(pytestFile("test_is_positive[2]")),
      skipped(pytestFile("test_divides_numbers")),
    ],
    [4, 0, 2, 0],
    PARTIAL,
  ),
  "pytest-verbose-deselected-plain.txt": inventory(
    "pytest",
    [passed(pytestFile("TestMath::test_adds_numbers"))],
    [1, 0, 0, 0],
    FOCUSED,
  ),
  "pytest-deselected-plain.txt": inventory("pytest", [], [1, 0, 0, 0], PARTIAL_FOCUSED),
  "pytest-empty-plain.txt": inventory("pytest", [], NONE, COMPLETE),
  "go-test-verbose-skips-plain.txt": inventory(
    "go",
    [
      passed(goPackage("TestMath")),
      passed(goPackage("TestMath/adds_numbers")),
      passed(goPackage("TestMath/subtracts_numbers")),
      skipped(goPackage("TestMultiplies")),
      passed(goPackage("TestAddsFromOutside")),
    ],
    [4, 0, 1, 0],
    COMPLETE,
  ),
  "go-test-json-skips-plain.txt": inventory(
    "go",
    [
      passed(goPackage("TestMath/adds_numbers")),
      passed(goPackage("TestMath/subtracts_numbers")),
      passed(goPackage("TestMath")),
      skipped(goPackage("TestMultiplies")),
      passed(goPackage("TestAddsFromOutside")),
    ],
    [4, 0, 1, 0],
    COMPLETE,
  ),
  "go-test-skips-plain.txt": inventory("go", [], undefined, PARTIAL),
  "go-test-verbose-run-plain.txt": inventory(
    "go",
    [
      passed(goPackage("TestMath")),
      passed(goPackage("TestMath/adds_numbers")),
      passed(goPackage("TestMath/subtracts_numbers")),
    ],
    [3, 0, 0, 0],
    COMPLETE,
  ),
  "go-test-verbose-no-match-plain.txt": inventory("go", [], NONE, FOCUSED),
  "go-test-empty-plain.txt": inventory("go", [], NONE, COMPLETE),
  "cargo-test-skips-plain.txt": inventory(
    "cargo",
    [
      skipped("tests::multiplies_numbers"),
      passed("tests::adds_numbers"),
      passed("tests::nested::subtracts_numbers"),
      passed("adds_from_outside"),
    ],
    [3, 0, 1, 0],
    COMPLETE,
  ),
  "cargo-test-quiet-plain.txt": inventory("cargo", [], [3, 0, 1, 0], PARTIAL),
  "cargo-test-filtered-plain.txt": inventory(
    "cargo",
    [passed("tests::adds_numbers"), passed("adds_from_outside")],
    [2, 0, 0, 0],
    FOCUSED,
  ),
  "cargo-test-empty-plain.txt": inventory("cargo", [], NONE, COMPLETE),
  "deno-test-skips-plain.txt": inventory(
    "deno",
    [
      passed(denoFile(ADDS)),
      passed(denoFile(SUBTRACTS)),
      passed(denoFile("math > nested")),
      passed(denoFile("math")),
      skipped(denoFile("multiplies numbers")),
      passed(denoFile("adds from outside")),
    ],
    [5, 0, 1, 0],
    COMPLETE,
  ),
  "deno-test-filtered-plain.txt": inventory(
    "deno",
    [passed(denoFile("adds from outside"))],
    [1, 0, 0, 0],
    FOCUSED,
  ),
  "deno-test-only-plain.txt": inventory(
    "deno",
    [passed(denoFile("adds from outside"))],
    [1, 0, 0, 0],
    FOCUSED,
  ),
  "deno-test-empty-plain.txt": inventory("deno", [], NONE, COMPLETE),
};

const nodeFailing = [passed(ADDS), failed(SUBTRACTS), failed("divides by zero")];
const failingRunExpectations: Record<string, TestInventory> = {
  "vitest-plain.txt": inventory(
    "vitest",
    [failed(vitestFile(SUBTRACTS)), failed(vitestFile("divides by zero"))],
    [1, 2, 0, 0],
    PARTIAL,
  ),
  "jest-plain.txt": inventory(
    "jest",
    [failed(jestFile("divides by zero")), passed(jestFile(ADDS)), failed(jestFile(SUBTRACTS))],
    [1, 2, 0, 0],
    COMPLETE,
  ),
  "mocha-plain.txt": inventory(
    "mocha",
    [failed("divides by zero"), passed(ADDS), failed(SUBTRACTS)],
    [1, 2, 0, 0],
    COMPLETE,
  ),
  "node-test-spec-plain.txt": inventory("node-test", nodeFailing, [1, 2, 0, 0], COMPLETE),
  "node-test-tap-plain.txt": inventory("tap", nodeFailing, [1, 2, 0, 0], COMPLETE),
  "pytest-plain.txt": inventory(
    "pytest",
    [
      failed(pytestFile("TestMath::test_subtracts_numbers")),
      failed(pytestFile("test_divides_by_zero")),
    ],
    [1, 2, 0, 0],
    PARTIAL,
  ),
  "pytest-verbose-plain.txt": inventory(
    "pytest",
    [
      passed(pytestFile("TestMath::test_adds_numbers")),
      failed(pytestFile("TestMath::test_subtracts_numbers")),
      failed(pytestFile("test_divides_by_zero")),
    ],
    [1, 2, 0, 0],
    COMPLETE,
  ),
  // Without -v go lists only failures, a parent test failing with its subtest.
  "go-test-plain.txt": inventory(
    "go",
    [
      failed(goPackage("TestMath")),
      failed(goPackage("TestMath/subtracts_numbers")),
      failed(goPackage("TestDividesByZero")),
    ],
    undefined,
    PARTIAL,
  ),
  "go-test-verbose-plain.txt": inventory(
    "go",
    [
      failed(goPackage("TestMath")),
      passed(goPackage("TestMath/adds_numbers")),
      failed(goPackage("TestMath/subtracts_numbers")),
      failed(goPackage("TestDividesByZero")),
    ],
    [1, 3, 0, 0],
    COMPLETE,
  ),
  "cargo-test-plain.txt": inventory(
    "cargo",
    [
      passed("tests::adds_numbers"),
      failed("tests::divides_by_zero"),
      failed("tests::nested::subtracts_numbers"),
    ],
    [1, 2, 0, 0],
    COMPLETE,
  ),
  // deno counts a test or step whose steps failed as failed too.
  "deno-test-plain.txt": inventory(
    "deno",
    [
      passed(denoFile(ADDS)),
      failed(denoFile(SUBTRACTS)),
      failed(denoFile("math > nested")),
      failed(denoFile("math")),
      failed(denoFile("divides by zero")),
    ],
    [1, 4, 0, 0],
    COMPLETE,
  ),
  "deno-test-uncaught-plain.txt": inventory(
    "deno",
    [failed("./math_test.ts (uncaught error)")],
    [0, 1, 0, 0],
    COMPLETE,
  ),
};

describe("parseTestInventory on real runner output", () => {
  it.each(Object.entries(inventoryExpectations))("%s", (fixture, expected) => {
    expect(parseTestInventory(readFileSync(new URL(fixture, inventoryDir), "utf8"))).toEqual(
      expected,
    );
  });

  it("has an expectation for every inventory fixture", () => {
    expect(readdirSync(inventoryDir).sort()).toEqual(Object.keys(inventoryExpectations).sort());
  });

  it.each(Object.entries(failingRunExpectations))("failing run %s", (fixture, expected) => {
    expect(parseTestInventory(readFixture(fixture))).toEqual(expected);
  });

  it("reads color and plain output alike", () => {
    for (const name of ["jest", "mocha", "node-test-spec", "node-test-tap", "cargo-test"]) {
      expect(parseTestInventory(readFixture(`${name}-color.txt`))).toEqual(
        parseTestInventory(readFixture(`${name}-plain.txt`)),
      );
    }
  });

  it("finds no test run in empty output or in other tools' output", () => {
    expect(parseTestInventory("")).toBeUndefined();
    expect(parseTestInventory("> tests@1.0.0 test\n> true\n")).toBeUndefined();
    for (const name of ["tsc-plain.txt", "eslint-stylish-plain.txt", "biome-plain.txt"]) {
      expect(parseTestInventory(readFixture(name))).toBeUndefined();
    }
  });
});

describe("parseTestInventory on other shapes of the same formats", () => {
  it("reads TAP from other producers, counting the stream itself", () => {
    const text = [
      "TAP version 13",
      "ok 1 - first",
      "not ok 2 - second",
      "ok 3 - later # SKIP no network",
      "not ok 4 - someday # TODO not done",
      "1..4",
    ].join("\n");
    expect(parseTestInventory(text)).toEqual(
      inventory(
        "tap",
        [passed("first"), failed("second"), skipped("later"), todo("someday")],
        [1, 1, 1, 1],
        COMPLETE,
      ),
    );
    expect(parseTestInventory("1..0 # SKIP nothing to do")).toEqual(
      inventory("tap", [], NONE, COMPLETE),
    );
  });

  it("reads pytest-xdist's verbose lines and a collection error", () => {
    const text = [
      "[gw0] [ 50%] PASSED tests/test_a.py::test_one",
      "[gw1] [100%] SKIPPED tests/test_a.py::test_two",
      "==================== 1 passed, 1 skipped in 0.20s ====================",
    ].join("\n");
    expect(parseTestInventory(text)).toEqual(
      inventory(
        "pytest",
        [passed("tests/test_a.py::test_one"), skipped("tests/test_a.py::test_two")],
        [1, 0, 1, 0],
        COMPLETE,
      ),
    );
    const collection = [
      "ERROR tests/test_broken.py - ModuleNotFoundError: No module named 'nope'",
      "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
      "=============================== 1 error in 0.05s ===============================",
    ].join("\n");
    expect(parseTestInventory(collection)).toEqual(
      inventory("pytest", [failed("tests/test_broken.py")], [0, 1, 0, 0], COMPLETE),
    );
  });

  it("adds up cargo's test binaries and names doc-tests by file and item", () => {
    const text = [
      "running 1 test",
      "test tests::adds ... ok",
      "",
      "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
      "",
      "running 1 test",
      "test src/lib.rs - add (line 3) ... ignored",
      "",
      "test result: ok. 0 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    ].join("\n");
    expect(parseTestInventory(text)).toEqual(
      inventory(
        "cargo",
        [passed("tests::adds"), skipped("src/lib.rs - add (line 3)")],
        [1, 0, 1, 0],
        COMPLETE,
      ),
    );
  });

  it("names go tests by package, and a package that did not build ran nothing", () => {
    const text = [
      "=== RUN   TestParse",
      "--- PASS: TestParse (0.00s)",
      "PASS",
      "ok  \texample.com/app/config\t0.004s",
      "=== RUN   TestParse",
      "--- FAIL: TestParse (0.00s)",
      "FAIL",
      "FAIL\texample.com/app/server\t0.006s",
    ].join("\n");
    expect(parseTestInventory(text)).toEqual(
      inventory(
        "go",
        [
          passed("example.com/app/config > TestParse"),
          failed("example.com/app/server > TestParse"),
        ],
        [1, 1, 0, 0],
        COMPLETE,
      ),
    );
    const broken =
      "# example.com/app\n./app.go:3:1: syntax error\nFAIL\texample.com/app [build failed]\nFAIL";
    expect(parseTestInventory(broken)).toEqual(inventory("go", [], NONE, COMPLETE));
  });

  it("reads mocha's tree behind npm's own lines", () => {
    const text = [
      "",
      "> app@1.0.0 test",
      "> mocha",
      "",
      "",
      "  parser",
      "    ✔ reads a header",
      "    ✔ reads a body (112ms)",
      "",
      "",
      "  2 passing (130ms)",
      "",
    ].join("\n");
    expect(parseTestInventory(text)).toEqual(
      inventory(
        "mocha",
        [passed("parser > reads a header"), passed("parser > reads a body")],
        [2, 0, 0, 0],
        COMPLETE,
      ),
    );
  });

  it("names jest failures of a multi-file run once, by file and suite path", () => {
    const text = [
      "PASS ./a.test.js",
      "FAIL ./b.test.js",
      "  ● parser › reads a body",
      "",
      "    expect(received).toBe(expected)",
      "",
      "Summary of all failing tests",
      "FAIL ./b.test.js",
      "  ● parser › reads a body",
      "",
      "Test Suites: 1 failed, 1 passed, 2 total",
      "Tests:       1 failed, 4 passed, 5 total",
    ].join("\n");
    expect(parseTestInventory(text)).toEqual(
      inventory("jest", [failed("./b.test.js > parser > reads a body")], [4, 1, 0, 0], PARTIAL),
    );
  });
});

describe("parseTestInventory on any input", () => {
  const fixtureLines = readdirSync(inventoryDir).flatMap((name) =>
    readFileSync(new URL(name, inventoryDir), "utf8").split("\n"),
  );

  it("never throws on shuffled and mangled runner output", () => {
    const line = fc.oneof(fc.constantFrom(...fixtureLines), fc.string({ maxLength: 80 }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 80 }), (lines) => {
        const found = parseTestInventory(lines.join("\n"));
        for (const test of found?.tests ?? []) expect(typeof test.name).toBe("string");
      }),
      { numRuns: 200 },
    );
  });
});
