import { describe, expect, it } from "vitest";
import { formatJsonPath, valueAtPath } from "./json-path.js";

describe("formatJsonPath", () => {
  it("writes paths the way they are typed in JavaScript", () => {
    expect(formatJsonPath(["steps", "initial.issue", "next"])).toBe('steps["initial.issue"].next');
    expect(formatJsonPath(["completionConditions", 0, "validator"])).toBe(
      "completionConditions[0].validator",
    );
    expect(formatJsonPath(["git-clean"])).toBe('["git-clean"]');
    expect(formatJsonPath(["$schema"])).toBe("$schema");
    expect(formatJsonPath([])).toBe("");
  });
});

describe("valueAtPath", () => {
  it("follows keys and indexes, and gives undefined past the end", () => {
    const data = { steps: { "a.b": { list: [1, { x: 2 }] } } };
    expect(valueAtPath(data, ["steps", "a.b", "list", 1, "x"])).toBe(2);
    expect(valueAtPath(data, ["steps", "missing", "x"])).toBeUndefined();
    expect(valueAtPath(data, ["steps", "a.b", "list", 0, "x"])).toBeUndefined();
  });
});
