import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findJsonObjects, lastJsonObject, readStructuredObject } from "./json-in-text.js";

describe("findJsonObjects", () => {
  it.each([
    ["an object alone", '{"a": 1}', [{ a: 1 }]],
    [
      "objects in prose, outermost only",
      'x {"a": {"b": 2}} y {"c": 3}',
      [{ a: { b: 2 } }, { c: 3 }],
    ],
    ["braces inside strings", '{"text": "a } b { c"}', [{ text: "a } b { c" }]],
    ["escaped quotes inside strings", '{"text": "say \\"}\\""}', [{ text: 'say "}"' }]],
    ["an object nested in prose braces", 'use {x} and {not json {"a": 1}}', [{ a: 1 }]],
    ["an unclosed brace before an object", 'start { oops {"a": 1}', [{ a: 1 }]],
    ["arrays are not objects", "[1, 2]", []],
    ["no braces", "plain text", []],
  ])("%s", (_name, text, expected) => {
    expect(findJsonObjects(text).map((found) => found.value)).toEqual(expected);
  });

  it("finds any JSON object embedded in prose", () => {
    const prose = fc.string().filter((text) => !text.includes("{") && !text.includes("}"));
    fc.assert(
      fc.property(
        prose,
        fc.dictionary(fc.string(), fc.jsonValue()),
        prose,
        (before, object, after) => {
          const found = findJsonObjects(`${before}${JSON.stringify(object)}${after}`);
          expect(found.map((entry) => entry.value)).toEqual([JSON.parse(JSON.stringify(object))]);
        },
      ),
    );
  });

  it("lastJsonObject returns the last object that passes the filter", () => {
    const text = '{"status": "a"} {"name": "b"} {"status": "c"} {"other": 1}';
    expect(lastJsonObject(text, (value) => "status" in value)).toEqual({ status: "c" });
    expect(lastJsonObject(text)).toEqual({ other: 1 });
    expect(lastJsonObject("none")).toBeUndefined();
  });
});

describe("readStructuredObject", () => {
  it("reads the object of a fenced json block with prose before and after it", () => {
    const text = [
      "I fixed add() and the tests pass. The {braces} here are prose.",
      "",
      "```json",
      '{"status": "completed", "next_action": {"action": "complete"}}',
      "```",
      "",
      "That is all.",
    ].join("\n");
    expect(readStructuredObject({ text })).toEqual({
      status: "completed",
      next_action: { action: "complete" },
    });
  });

  it("prefers the structured output to an object in the text", () => {
    expect(readStructuredObject({ structuredOutput: { a: 1 }, text: '{"b": 2}' })).toEqual({
      a: 1,
    });
  });
});
