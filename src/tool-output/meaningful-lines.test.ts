import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseLintErrors } from "./lint-errors.js";
import { meaningfulLines, quoteOutput } from "./meaningful-lines.js";
import { parseTypeErrors } from "./type-errors.js";

/*
 * Real output of `npm run lint` (npm 11) with biome 2.5 and with eslint 9, of
 * `pnpm run lint` (pnpm 9) and `yarn run lint` (yarn 1.22) with eslint 9, of
 * `npm run typecheck` with tsc, of an npm script whose program is not
 * installed, and of npm asked for a script that does not exist.
 */
const fixturesDir = new URL("./fixtures/", import.meta.url);
const readFixture = (name: string) => readFileSync(new URL(name, fixturesDir), "utf8");

const ESLINT_FIRST = "1:1   error    Unexpected var, use let or const instead           no-var";
const BANNERS = /^> |^yarn run v|^\$ |^warning package\.json|ELIFECYCLE|^error Command failed/;

describe("meaningfulLines", () => {
  it.each([
    ["script-runs/npm-run-eslint.txt"],
    ["script-runs/pnpm-run-eslint.txt"],
    ["script-runs/yarn-run-eslint.txt"],
  ])("quotes eslint's problems, not the package manager's banner (%s)", (fixture) => {
    const lines = meaningfulLines(readFixture(fixture));
    expect(lines[0]).toBe(ESLINT_FIRST);
    expect(lines).toHaveLength(5);
    expect(lines.filter((line) => BANNERS.test(line))).toEqual([]);
  });

  it("quotes biome's diagnostics under npm's banner", () => {
    const lines = meaningfulLines(readFixture("script-runs/npm-run-biome.txt"));
    expect(lines.slice(0, 2)).toEqual([
      "a.js:2:1 lint/style/useConst  FIXABLE  ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━",
      "! This let declares a variable that is only assigned once.",
    ]);
    expect(lines.some((line) => line.startsWith(">"))).toBe(false);
  });

  it("quotes tsc's errors", () => {
    expect(meaningfulLines(readFixture("script-runs/npm-run-tsc.txt"), 2)).toEqual([
      "b.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      "b.ts(2,33): error TS2322: Type 'string' is not assignable to type 'number'.",
    ]);
  });

  it("quotes the shell's word on a missing program", () => {
    expect(meaningfulLines(readFixture("script-runs/npm-run-missing-program.txt"))).toEqual([
      "sh: 1: biome: not found",
    ]);
  });

  it("quotes the package manager's trailer when the check printed nothing else", () => {
    expect(meaningfulLines(readFixture("script-runs/npm-missing-script.txt"), 2)).toEqual([
      'npm error Missing script: "typecheck"',
      "npm error To see a list of scripts, run:",
    ]);
  });

  it("takes the first lines when none reads as an error or a finding", () => {
    expect(meaningfulLines("\n\nfirst\n───────\nsecond\nthird\n", 2)).toEqual(["first", "second"]);
  });

  it("names a failing test by the line its runner printed", () => {
    const vitest = [
      "",
      "> proj@1.0.0 test",
      "> vitest run",
      "",
      " RUN  v3.2.4 /home/u/proj",
      "",
      " ❯ test/sum.test.ts (2 tests | 1 failed) 3ms",
      "   ✓ sum > adds zero 1ms",
      "   × sum > adds two numbers 2ms",
      "     → expected 5 to be 4 // Object.is equality",
      "",
      " Test Files  1 failed (1)",
    ].join("\n");
    const lines = meaningfulLines(vitest);
    expect(lines).toContain("× sum > adds two numbers 2ms");
    expect(lines.some((line) => line.startsWith(">"))).toBe(false);
  });

  it("is empty for output that says nothing", () => {
    expect(meaningfulLines("\n> proj@1.0.0 lint\n> biome check .\n\n")).toEqual([]);
    expect(quoteOutput("")).toBe("");
  });

  it("cuts a long line and joins a quote into one line", () => {
    const [line] = meaningfulLines(`error: ${"x".repeat(1000)}`);
    expect(line).toHaveLength(300);
    expect(quoteOutput("error: one\nerror: two\n")).toBe("error: one / error: two");
  });
});

describe("every problem the tools reported is extracted", () => {
  it("biome: the lint, assist and format diagnostics, 8 errors and 9 warnings", () => {
    const problems = parseLintErrors(readFixture("script-runs/npm-run-biome.txt"));
    expect(problems).toHaveLength(17);
    expect(problems.filter((problem) => problem.rule === "format")).toEqual([
      expect.objectContaining({ file: "a.js", line: 0, severity: "error" }),
      expect.objectContaining({ file: "b.ts", line: 0 }),
      expect.objectContaining({ file: "package.json", line: 0 }),
      expect.objectContaining({ file: "tsconfig.json", line: 0 }),
    ]);
  });

  it.each([
    ["script-runs/npm-run-eslint.txt"],
    ["script-runs/pnpm-run-eslint.txt"],
    ["script-runs/yarn-run-eslint.txt"],
  ])("eslint: all 13 problems (%s)", (fixture) => {
    expect(parseLintErrors(readFixture(fixture))).toHaveLength(13);
  });

  it("tsc: all 3 errors", () => {
    expect(parseTypeErrors(readFixture("script-runs/npm-run-tsc.txt"))).toHaveLength(3);
  });

  it("biome: a parse error, with its place", () => {
    const output = [
      "c.js:1:11 parse ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━",
      "",
      "  × Expected an expression, or an assignment but instead found ';'.",
      "",
    ].join("\n");
    expect(parseLintErrors(output)).toEqual([
      {
        file: "c.js",
        line: 1,
        column: 11,
        rule: "parse",
        message: "Expected an expression, or an assignment but instead found ';'.",
        severity: "error",
      },
    ]);
  });
});
