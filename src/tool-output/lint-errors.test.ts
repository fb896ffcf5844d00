import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LintProblem, parseLintErrors } from "./lint-errors.js";

/*
 * Real output of eslint 9 (stylish, unix via eslint-formatter-unix, json) and
 * biome lint on src/app.js (3 problems) and "src/other file.js" (1 problem).
 */
const fixturesDir = new URL("./fixtures/", import.meta.url);
const readFixture = (name: string) => readFileSync(new URL(name, fixturesDir), "utf8");

const APP = "/tmp/fx/lint/src/app.js";
const OTHER = "/tmp/fx/lint/src/other file.js";

/** Stylish drops the final period of eslint's messages; unix and json keep it. */
function eslintProblems(period: string): LintProblem[] {
  return [
    {
      file: APP,
      line: 1,
      column: 1,
      rule: "no-var",
      message: `Unexpected var, use let or const instead${period}`,
      severity: "warning",
    },
    {
      file: APP,
      line: 2,
      column: 7,
      rule: "no-unused-vars",
      message: `'unused' is assigned a value but never used${period}`,
      severity: "error",
    },
    {
      file: APP,
      line: 3,
      column: 11,
      rule: "eqeqeq",
      message: `Expected '===' and instead saw '=='${period}`,
      severity: "error",
    },
    {
      file: OTHER,
      line: 2,
      column: 5,
      rule: "no-unused-vars",
      message: `'löschen' is assigned a value but never used${period}`,
      severity: "error",
    },
  ];
}

const biome: LintProblem[] = [
  {
    file: "src/app.js",
    line: 2,
    column: 7,
    rule: "lint/correctness/noUnusedVariables",
    message: "This variable unused is unused.",
    severity: "warning",
  },
  {
    file: "src/other file.js",
    line: 2,
    column: 1,
    rule: "lint/style/useConst",
    message: "This let declares a variable that is only assigned once.",
    severity: "warning",
  },
  {
    file: "src/other file.js",
    line: 2,
    column: 5,
    rule: "lint/correctness/noUnusedVariables",
    message: "This variable löschen is unused.",
    severity: "warning",
  },
  {
    file: "src/app.js",
    line: 3,
    column: 11,
    rule: "lint/suspicious/noDoubleEquals",
    message: "Using == may be unsafe if you are relying on type coercion.",
    severity: "error",
  },
];

describe("parseLintErrors on real linter output", () => {
  it.each([
    ["eslint-stylish-plain.txt", eslintProblems("")],
    ["eslint-stylish-color.txt", eslintProblems("")],
    ["eslint-unix-plain.txt", eslintProblems(".")],
    ["eslint-json-plain.txt", eslintProblems(".")],
    ["biome-plain.txt", biome],
    ["biome-color.txt", biome],
  ])("%s", (fixture, expected) => {
    expect(parseLintErrors(readFixture(fixture))).toEqual(expected);
  });

  it("reads a stylish parse error, which has no rule", () => {
    const text =
      "\n/repo/src/bad.js\n  3:5  error  Parsing error: Unexpected token )\n\n✖ 1 problem (1 error, 0 warnings)\n";
    expect(parseLintErrors(text)).toEqual([
      {
        file: "/repo/src/bad.js",
        line: 3,
        column: 5,
        rule: "",
        message: "Parsing error: Unexpected token )",
        severity: "error",
      },
    ]);
  });

  it("finds nothing in a clean run or in unrelated output", () => {
    expect(parseLintErrors("")).toEqual([]);
    expect(parseLintErrors(readFixture("tsc-plain.txt"))).toEqual([]);
  });

  it("never throws on arbitrary or mangled input", () => {
    const fixtureLines = readdirSync(fixturesDir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .flatMap((entry) => readFixture(entry.name).split("\n"));
    const line = fc.oneof(fc.constantFrom(...fixtureLines), fc.string({ maxLength: 80 }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), (lines) => {
        expect(Array.isArray(parseLintErrors(lines.join("\n")))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
