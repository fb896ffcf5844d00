import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { readSimpleParams } from "./front-matter-params.js";

/** Words and fragments that make YAML read something other than a list of plain names. */
const WORDS = [
  "failedTests",
  "errorOutput",
  "x",
  "_a1",
  "true",
  "Null",
  "no",
  "~",
  "1",
  "a#b",
  '"q"',
  "a:b",
  "-",
  "",
  " ",
];
const SPACES = ["", " ", "  ", "\t", "   "];

const flowText = fc
  .tuple(
    fc.constantFrom(...SPACES),
    fc.array(fc.tuple(fc.constantFrom(...SPACES), fc.constantFrom(...WORDS))),
    fc.constantFrom("", ",", " # c"),
  )
  .map(
    ([gap, items, tail]) => `params:${gap}[${items.map(([s, w]) => `${s}${w}`).join(",")}${tail}]`,
  );
const blockText = fc
  .tuple(
    fc.constantFrom("params:", "params: ", "params:\t", "param:"),
    fc.array(
      fc.tuple(
        fc.constantFrom(...SPACES),
        fc.constantFrom("- ", "-", "-  "),
        fc.constantFrom(...WORDS),
        fc.constantFrom(...SPACES),
      ),
    ),
    fc.constantFrom("", "\n", "\nother: 1", "\n# note"),
  )
  .map(
    ([key, items, tail]) =>
      [key, ...items.map(([indent, dash, word, after]) => `${indent}${dash}${word}${after}`)].join(
        "\n",
      ) + tail,
  );

function yamlParams(text: string): unknown {
  try {
    const data = parse(text) as { params?: unknown } | null;
    return data?.params;
  } catch {
    return "a YAML error";
  }
}

describe("readSimpleParams", () => {
  it("reads both shapes the scaffold and the docs write", () => {
    expect(readSimpleParams("params: [failedTests, errorOutput]")).toEqual([
      "failedTests",
      "errorOutput",
    ]);
    expect(readSimpleParams("params:\n  - changedFiles\n  - untrackedFiles\n")).toEqual([
      "changedFiles",
      "untrackedFiles",
    ]);
    expect(readSimpleParams("params: []")).toEqual([]);
  });

  it("leaves to YAML what it does not read as YAML does", () => {
    for (const text of [
      "params: [true, x]",
      "params:\n  - a\n    - b",
      "params:\n\t- a",
      "params: [a,]",
      "params: [a] # c",
      "other: 1",
      "params:\n  - a\nother: 2",
    ]) {
      expect(readSimpleParams(text)).toBeUndefined();
    }
  });

  it("whenever it answers, answers what YAML reads", () => {
    fc.assert(
      fc.property(fc.oneof(flowText, blockText), (text) => {
        const simple = readSimpleParams(text);
        if (simple !== undefined) expect(simple).toEqual(yamlParams(text));
      }),
      { numRuns: 2000 },
    );
  });
});
