import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FailedTest } from "./failed-test.js";
import { parseTestOutput } from "./test-output.js";

/*
 * Each fixture is the real output (stdout, then stderr) of one runner on the
 * same tiny project: 1 passing test and 2 failing ones, one of them inside
 * nested suites (`math > nested > subtracts numbers`), the other throwing
 * `boom: division by zero`. `-plain` ran with NO_COLOR=1, `-color` with FORCE_COLOR=1.
 */
const fixturesDir = new URL("./fixtures/", import.meta.url);
const readFixture = (name: string) => readFileSync(new URL(name, fixturesDir), "utf8");

const NESTED = "math > nested > subtracts numbers";
const THROWN = "divides by zero";
const NODE_ASSERTION = "Expected values to be strictly equal:\n2 !== 1";

const vitest: FailedTest[] = [
  {
    name: NESTED,
    error: "AssertionError: expected 2 to be 1 // Object.is equality",
    file: "math.test.mjs",
  },
  { name: THROWN, error: "Error: boom: division by zero", file: "math.test.mjs" },
];
const jest: FailedTest[] = [
  {
    name: NESTED,
    error: "expect(received).toBe(expected) // Object.is equality\nExpected: 1\nReceived: 2",
    file: "./math.test.js",
  },
  { name: THROWN, error: "boom: division by zero", file: "./math.test.js" },
];
const mocha: FailedTest[] = [
  { name: THROWN, error: "Error: boom: division by zero" },
  { name: NESTED, error: `AssertionError [ERR_ASSERTION]: ${NODE_ASSERTION}` },
];
const nodeSpec: FailedTest[] = [
  { name: NESTED, error: `AssertionError [ERR_ASSERTION]: ${NODE_ASSERTION}` },
  { name: THROWN, error: "Error: boom: division by zero" },
];
const nodeTap: FailedTest[] = [
  { name: NESTED, error: NODE_ASSERTION, file: "/tmp/fx/js/nt/math.test.js" },
  { name: THROWN, error: "boom: division by zero", file: "/tmp/fx/js/nt/math.test.js" },
];
const pytest: FailedTest[] = [
  { name: "TestMath::test_subtracts_numbers", error: "assert (3 - 1) == 1", file: "test_math.py" },
  {
    name: "test_divides_by_zero",
    error: "ValueError: boom: division by zero",
    file: "test_math.py",
  },
];
const goTest: FailedTest[] = [
  { name: "TestMath/subtracts_numbers", error: "math_test.go:16: expected 1, got 2" },
  {
    name: "TestDividesByZero",
    error: "math_test.go:23: unexpected error: boom: division by zero",
  },
];
const cargo: FailedTest[] = [
  { name: "tests::divides_by_zero", error: "boom: division by zero", file: "src/lib.rs" },
  {
    name: "tests::nested::subtracts_numbers",
    error: "assertion `left == right` failed\nleft: 2\nright: 1",
    file: "src/lib.rs",
  },
];
const deno: FailedTest[] = [
  { name: NESTED, error: `AssertionError: ${NODE_ASSERTION}`, file: "./math_test.ts" },
  { name: THROWN, error: "Error: boom: division by zero", file: "./math_test.ts" },
];

const expectations: Record<string, FailedTest[]> = {
  "vitest-plain.txt": vitest,
  "vitest-color.txt": vitest,
  "jest-plain.txt": jest,
  "jest-color.txt": jest,
  "mocha-plain.txt": mocha,
  "mocha-color.txt": mocha,
  "node-test-spec-plain.txt": nodeSpec,
  "node-test-spec-color.txt": nodeSpec,
  // Node 24: the spec reporter also without a terminal, the errors only in its closing summary.
  "node24-test-spec-plain.txt": nodeSpec,
  "node24-test-spec-color.txt": nodeSpec,
  "node-test-tap-plain.txt": nodeTap,
  "node-test-tap-color.txt": nodeTap,
  "pytest-plain.txt": pytest,
  "pytest-color.txt": pytest,
  "pytest-verbose-plain.txt": pytest,
  "pytest-verbose-color.txt": pytest,
  "go-test-plain.txt": goTest,
  "go-test-verbose-plain.txt": goTest,
  "go-test-json-plain.txt": goTest,
  "cargo-test-plain.txt": cargo,
  "cargo-test-color.txt": cargo,
  "cargo-test-backtrace-plain.txt": cargo,
  "deno-test-plain.txt": deno,
  "deno-test-color.txt": deno,
  "deno-test-uncaught-plain.txt": [
    {
      name: "./math_test.ts (uncaught error)",
      error:
        "SyntaxError: The requested module 'node:assert' does not provide an export named 'assertEquals'",
      file: "./math_test.ts",
    },
  ],
};

describe("parseTestOutput on real runner output", () => {
  it.each(Object.entries(expectations))("%s", (fixture, expected) => {
    expect(parseTestOutput(readFixture(fixture))).toEqual(expected);
  });

  it("has an expectation for every test-runner fixture", () => {
    const runnerFixtures = readdirSync(fixturesDir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && !/^(tsc|deno-check|eslint|biome)/.test(entry.name))
      .map((entry) => entry.name);
    expect(runnerFixtures.sort()).toEqual(Object.keys(expectations).sort());
  });

  it("finds nothing in a passing run", () => {
    const passing = readFixture("vitest-plain.txt")
      .split("\n")
      .filter((line) => /✓|passed|RUN/.test(line))
      .join("\n");
    expect(parseTestOutput(passing)).toEqual([]);
    expect(parseTestOutput("")).toEqual([]);
  });
});

describe("parseTestOutput on other shapes of the same formats", () => {
  it("reads pytest failure headings when the short summary is off", () => {
    const text = [
      "=================================== FAILURES ===================================",
      "_____________________________ test_divides_by_zero _____________________________",
      "",
      ">       raise ValueError('boom')",
      "E       ValueError: boom",
      "",
      "test_math.py:10: ValueError",
      "============================== 1 failed in 0.05s ===============================",
    ].join("\n");
    expect(parseTestOutput(text)).toEqual([
      { name: "test_divides_by_zero", error: "ValueError: boom" },
    ]);
  });

  it("names a pytest collection error by its file", () => {
    const text = "ERROR test_broken.py - ModuleNotFoundError: No module named 'nope'";
    expect(parseTestOutput(text)).toEqual([
      {
        name: "test_broken.py",
        error: "ModuleNotFoundError: No module named 'nope'",
        file: "test_broken.py",
      },
    ]);
  });

  it("reports a go package that failed to build", () => {
    const text =
      "# example.com/mathx\n./math.go:3:1: syntax error\nFAIL\texample.com/mathx [build failed]\nFAIL";
    expect(parseTestOutput(text)).toEqual([
      { name: "example.com/mathx [build failed]", error: "./math.go:3:1: syntax error" },
    ]);
  });

  it("reads the panic message of Rust before 1.73", () => {
    const text = [
      "test tests::old ... FAILED",
      "",
      "failures:",
      "",
      "---- tests::old stdout ----",
      "thread 'tests::old' panicked at 'boom: old style', src/lib.rs:4:9",
      "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
    ].join("\n");
    expect(parseTestOutput(text)).toEqual([
      { name: "tests::old", error: "boom: old style", file: "src/lib.rs" },
    ]);
  });

  it("names a vitest file that failed to load", () => {
    const text = [
      "⎯⎯⎯⎯⎯⎯ Failed Suites 1 ⎯⎯⎯⎯⎯⎯⎯",
      "",
      " FAIL  src/broken.test.ts [ src/broken.test.ts ]",
      "Error: Cannot find module './missing.js'",
      " ❯ src/broken.test.ts:1:1",
    ].join("\n");
    expect(parseTestOutput(text)).toEqual([
      {
        name: "src/broken.test.ts",
        error: "Error: Cannot find module './missing.js'",
        file: "src/broken.test.ts",
      },
    ]);
  });

  it("reads TAP from other producers and skips TODO results", () => {
    const text = [
      "TAP version 13",
      "ok 1 - first",
      "not ok 2 - second",
      "  ---",
      "  message: 'should be equal'",
      "  ...",
      "not ok 3 - later # TODO not done",
      "1..3",
    ].join("\n");
    expect(parseTestOutput(text)).toEqual([{ name: "second", error: "should be equal" }]);
  });

  it("falls back to lines that read like failures for an unknown runner", () => {
    const text = "running checks\n✗ parses the header (3ms)\nFAILED: writes the file\nall done";
    expect(parseTestOutput(text)).toEqual([
      { name: "parses the header", error: "" },
      { name: "writes the file", error: "" },
    ]);
  });
});

describe("parseTestOutput on any input", () => {
  const fixtureLines = readdirSync(fixturesDir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .flatMap((entry) => readFixture(entry.name).split("\n"));

  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 400 }), (text) => {
        expect(Array.isArray(parseTestOutput(text))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("never throws on shuffled and mangled runner output", () => {
    const line = fc.oneof(fc.constantFrom(...fixtureLines), fc.string({ maxLength: 80 }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 80 }), (lines) => {
        for (const test of parseTestOutput(lines.join("\n"))) {
          expect(typeof test.name).toBe("string");
          expect(typeof test.error).toBe("string");
        }
      }),
      { numRuns: 200 },
    );
  });
});
