import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseTypeErrors, type TypeCheckError } from "./type-errors.js";

/*
 * Real output of `tsc --noEmit` (plain, and --pretty) and `deno check` on a
 * project with two errors in src/math.ts and one in "src/other file.ts".
 */
const fixturesDir = new URL("./fixtures/", import.meta.url);
const readFixture = (name: string) => readFileSync(new URL(name, fixturesDir), "utf8");

const NUMBER_TO_STRING = "Type 'number' is not assignable to type 'string'.";
const STRING_ARGUMENT =
  "Argument of type 'string' is not assignable to parameter of type 'number'.";
const UNDEFINED_TO_NUMBER = "Type 'undefined' is not assignable to type 'number'.";

function expected(root: string): TypeCheckError[] {
  return [
    { file: `${root}src/math.ts`, line: 5, column: 7, code: "TS2322", message: NUMBER_TO_STRING },
    { file: `${root}src/math.ts`, line: 6, column: 28, code: "TS2345", message: STRING_ARGUMENT },
    {
      file: `${root}src/other file.ts`,
      line: 1,
      column: 14,
      code: "TS2322",
      message: UNDEFINED_TO_NUMBER,
    },
  ];
}

describe("parseTypeErrors on real compiler output", () => {
  it.each([
    ["tsc-plain.txt", ""],
    ["tsc-color.txt", ""],
    ["tsc-pretty-plain.txt", ""],
    ["deno-check-plain.txt", "/tmp/fx/ts/"],
    ["deno-check-color.txt", "/tmp/fx/ts/"],
  ])("%s", (fixture, root) => {
    expect(parseTypeErrors(readFixture(fixture))).toEqual(expected(root));
  });

  it("keeps the elaboration lines of a tsc message", () => {
    const text = [
      "src/a.ts(3,7): error TS2322: Type '{ a: string; }' is not assignable to type 'Shape'.",
      "  Object literal may only specify known properties, and 'a' does not exist in type 'Shape'.",
      "src/b.ts(1,1): error TS1005: ';' expected.",
    ].join("\n");
    expect(parseTypeErrors(text)).toEqual([
      {
        file: "src/a.ts",
        line: 3,
        column: 7,
        code: "TS2322",
        message:
          "Type '{ a: string; }' is not assignable to type 'Shape'.\nObject literal may only specify known properties, and 'a' does not exist in type 'Shape'.",
      },
      { file: "src/b.ts", line: 1, column: 1, code: "TS1005", message: "';' expected." },
    ]);
  });

  it("reports an error about no file with an empty file and line 0", () => {
    expect(parseTypeErrors("error TS5083: Cannot read file '/x/tsconfig.json'.")).toEqual([
      { file: "", line: 0, code: "TS5083", message: "Cannot read file '/x/tsconfig.json'." },
    ]);
  });

  it("finds nothing in a clean check or in unrelated output", () => {
    expect(parseTypeErrors("")).toEqual([]);
    expect(parseTypeErrors(readFixture("vitest-plain.txt"))).toEqual([]);
  });

  it("never throws on arbitrary or mangled input", () => {
    const fixtureLines = readdirSync(fixturesDir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .flatMap((entry) => readFixture(entry.name).split("\n"));
    const line = fc.oneof(fc.constantFrom(...fixtureLines), fc.string({ maxLength: 80 }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), (lines) => {
        expect(Array.isArray(parseTypeErrors(lines.join("\n")))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
