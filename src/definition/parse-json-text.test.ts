import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CloserError } from "../errors.js";
import {
  findDuplicateKey,
  findJsonSyntaxError,
  lineAndColumn,
  parseJsonText,
} from "./parse-json-text.js";

function parseErrorOf(text: string): CloserError {
  try {
    parseJsonText(text, "/agents/agent.json");
  } catch (error) {
    if (error instanceof CloserError) return error;
    throw error;
  }
  throw new Error("expected a parse error");
}

/** Line and column of the first occurrence of `marker`, counted by hand. */
function positionOf(text: string, marker: string): { line: number; column: number } {
  const offset = text.indexOf(marker);
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

describe("parseJsonText", () => {
  it("returns the parsed value of valid JSON, ignoring a byte order mark", () => {
    expect(parseJsonText('\uFEFF{"a": [1, true, null]}', "f.json")).toEqual({ a: [1, true, null] });
  });

  it.each([
    [
      "a missing comma",
      '{\n  "name": "x"\n  "description": "y"\n}',
      '"description"',
      "expected ','",
    ],
    ["a trailing comma", '{\n  "name": "x",\n  "steps": {},\n}', ",\n}", "trailing comma"],
    ["a comment", '{\n  // the name\n  "name": "x"\n}', "//", "comments are not allowed"],
    ["single quotes", "{\n  'name': 1\n}", "'name'", "property name in double quotes"],
    ["a bare word", '{\n  "a": yes\n}', "yes", "unexpected character"],
    ["an unterminated string", '{\n  "a": "text\n}', '"text', "unterminated string"],
    ["text after the value", '{"a": 1}\n{"b": 2}', '{"b"', "after the end"],
  ])("reports %s with its line and column", (_, text, marker, message) => {
    const error = parseErrorOf(text);
    expect(error.code).toBe("parse_error");
    expect(error.fields.file).toBe("/agents/agent.json");
    expect(error.message).toContain(message);
    expect({ line: error.fields.line, column: error.fields.column }).toEqual(
      positionOf(text, marker),
    );
    expect(error.describe()).toContain(
      `/agents/agent.json:${error.fields.line}:${error.fields.column}`,
    );
  });

  it("reports an unexpected end of file at the end", () => {
    const text = '{\n  "a": [1, 2';
    const error = parseErrorOf(text);
    expect(error.message).toContain("end of file");
    expect(error.fields.line).toBe(2);
    expect(error.fields.column).toBe(text.split("\n")[1]!.length + 1);
  });
});

describe("duplicate keys", () => {
  it("reports the second key with its JSON path, line and column, and names the first", () => {
    const text = '{\n  "steps": {\n    "a": { "next": "b",\n      "next": "c" }\n  }\n}';
    const error = parseErrorOf(text);
    expect(error.code).toBe("parse_error");
    expect(error.message).toContain('duplicate key "next"');
    expect(error.fields.jsonPath).toBe("steps.a.next");
    expect({ line: error.fields.line, column: error.fields.column }).toEqual(
      positionOf(text, '"next": "c"'),
    );
    expect(error.fields.fix).toContain("lines 3 and 4");
  });

  it("finds none when the same key is in different objects", () => {
    const text = '{"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}], "x": 3}';
    expect(findDuplicateKey(text)).toBeUndefined();
    expect(parseJsonText(text, "f.json")).toEqual(JSON.parse(text));
  });

  it("compares keys as JSON.parse reads them, escapes included", () => {
    expect(findDuplicateKey('{"list": [{"a": 1, "\\u0061": 2}]}')).toMatchObject({
      key: "a",
      path: ["list", 0, "a"],
    });
  });

  it("finds none in what JSON.stringify writes, and finds a key written twice", () => {
    fc.assert(
      fc.property(fc.json(), fc.string(), (text, key) => {
        expect(findDuplicateKey(text)).toBeUndefined();
        const doubled = `{${JSON.stringify(key)}: ${text}, ${JSON.stringify(key)}: 1}`;
        expect(findDuplicateKey(doubled)).toMatchObject({ key, path: [key] });
      }),
      { numRuns: 200 },
    );
  });
});

describe("findJsonSyntaxError", () => {
  it("finds no error exactly when JSON.parse accepts the text", () => {
    const mutated = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom("", ",", "}", "]", '"', "/", "x", " ", "\\", "0"))
      .map(([text, position, insert]) => {
        const at = position % (text.length + 1);
        return text.slice(0, at) + insert + text.slice(at);
      });
    fc.assert(
      fc.property(fc.oneof(fc.json(), mutated, fc.string()), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        const problem = findJsonSyntaxError(text);
        expect(problem === undefined).toBe(valid);
        if (problem) expect(problem.offset).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 500 },
    );
  });
});

describe("lineAndColumn", () => {
  it("counts lines and columns from 1", () => {
    expect(lineAndColumn("ab\ncd", 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });
});
