import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cutParamsForPrompt, cutText } from "./cut-for-prompt.js";

describe("cutText", () => {
  it("docs/retry.md#cutting-params short text is kept whole", () => {
    expect(cutText("short", 100)).toBe("short");
  });

  it("docs/retry.md#cutting-params long text keeps head and tail within the limit and says how much was cut", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 300, maxLength: 3000 }),
        fc.integer({ min: 100, max: 290 }),
        (text, max) => {
          const cut = cutText(text, max);
          expect(cut.length).toBeLessThanOrEqual(max);
          const match = /\[\.\.\. (\d+) characters cut \.\.\.\]/.exec(cut);
          expect(match).not.toBeNull();
          const note = match?.[0] ?? "";
          const [head = "", tail = ""] = cut.split(`\n${note}\n`);
          expect(text.startsWith(head)).toBe(true);
          expect(text.endsWith(tail)).toBe(true);
          expect(head.length + tail.length + Number(match?.[1])).toBe(text.length);
        },
      ),
    );
  });
});

describe("cutParamsForPrompt", () => {
  const limits = { maxChars: 200, maxNestedChars: 100, maxItems: 3 };
  it.each([
    ["a short string is untouched", { a: "x" }, { a: "x" }],
    ["numbers and booleans are untouched", { a: 1, b: true }, { a: 1, b: true }],
    [
      "a long string array gets a closing note",
      { files: ["a", "b", "c", "d", "e"] },
      { files: ["a", "b", "c", "... and 2 more"] },
    ],
    [
      "an object array keeps its shape and its first entries",
      { tests: [{ name: "1" }, { name: "2" }, { name: "3" }, { name: "4" }] },
      { tests: [{ name: "1" }, { name: "2" }, { name: "3" }] },
    ],
  ])("docs/retry.md#cutting-params %s", (_name, params, expected) => {
    expect(cutParamsForPrompt(params, limits).params).toEqual(expected);
  });

  it("docs/retry.md#cutting-params nested strings are cut to the nested limit and every cut is noted", () => {
    const result = cutParamsForPrompt(
      { tests: [{ name: "t", error: "e".repeat(1000) }], short: "ok" },
      limits,
    );
    const tests = result.params.tests as { error: string }[];
    expect(tests[0]?.error.length).toBeLessThanOrEqual(100);
    expect(result.cuts).toHaveLength(1);
    expect(result.cuts[0]).toMatch(/^tests: /);
  });
});
