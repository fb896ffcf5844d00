import { describe, expect, it } from "vitest";
import { extractParam, extractParams } from "./extract-param.js";

const facts = {
  stdout: " M src/a.ts\n?? notes.txt\n",
  stderr: "warning: something\n",
  exitCode: 1,
};

describe("extractParam", () => {
  it("hands out the raw output, whole", () => {
    expect(extractParam("stdout", facts)).toBe(facts.stdout);
    expect(extractParam("stderr", facts)).toBe(facts.stderr);
    expect(extractParam("output", facts)).toBe(facts.stdout + facts.stderr);
    expect(extractParam("exitCode", facts)).toBe(1);
  });

  it("reads git status from stdout", () => {
    expect(extractParam("parseChangedFiles", facts)).toEqual(["src/a.ts"]);
    expect(extractParam("parseUntrackedFiles", facts)).toEqual(["notes.txt"]);
  });

  it("reads test, type and lint reports from stdout and stderr together", () => {
    const split = {
      stdout: "TAP version 13\nnot ok 1 - reads the config\n",
      stderr:
        "src/a.ts(2,3): error TS2304: Cannot find name 'x'.\n/r/a.js:1:1: Bad. [Error/no-x]\n",
      exitCode: 1,
    };
    expect(extractParam("parseTestOutput", split)).toEqual([
      { name: "reads the config", error: "" },
    ]);
    expect(extractParam("parseTypeErrors", split)).toEqual([
      { file: "src/a.ts", line: 2, column: 3, code: "TS2304", message: "Cannot find name 'x'." },
    ]);
    expect(extractParam("parseLintErrors", split)).toEqual([
      { file: "/r/a.js", line: 1, column: 1, rule: "no-x", message: "Bad.", severity: "error" },
    ]);
  });
});

describe("extractParam parseTestInventory", () => {
  it("lists the tests of a run, and is null when the output is no test run", () => {
    const tap = {
      stdout: "TAP version 13\nok 1 - reads\n",
      stderr: "not ok 2 - writes\n1..2\n",
      exitCode: 1,
    };
    expect(extractParam("parseTestInventory", tap)).toEqual({
      runner: "tap",
      tests: [
        { name: "reads", state: "passed" },
        { name: "writes", state: "failed" },
      ],
      counts: { passed: 1, failed: 1, skipped: 0, todo: 0 },
      complete: true,
    });
    expect(extractParam("parseTestInventory", facts)).toBeNull();
  });
});

describe("extractParams", () => {
  it("computes every mapped param", () => {
    expect(extractParams({ changedFiles: "parseChangedFiles", code: "exitCode" }, facts)).toEqual({
      changedFiles: ["src/a.ts"],
      code: 1,
    });
    expect(extractParams({}, facts)).toEqual({});
  });
});
