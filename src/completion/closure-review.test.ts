import { describe, expect, it } from "vitest";
import { CLOSURE_REVIEW_SCHEMA, closureReviewWords, readClosureReview } from "./closure-review.js";
import { SchemaValidators } from "./schema-validators.js";

const done = { item: "tests pass", done: true, evidence: "npm test: 12 passed" };
const notDone = { item: "README updated", done: false, evidence: "" };

describe("readClosureReview", () => {
  const cases: {
    name: string;
    response: { structuredOutput?: unknown; text: string };
    ok: boolean;
    complete?: boolean;
    pending?: string[];
    error?: string;
  }[] = [
    {
      name: "docs/completion.md#closure-review allComplete with every item done is complete",
      response: {
        structuredOutput: { allComplete: true, checklist: [done], pendingActions: [] },
        text: "",
      },
      ok: true,
      complete: true,
      pending: [],
    },
    {
      name: "docs/completion.md#closure-review allComplete false lists the pending actions",
      response: {
        structuredOutput: {
          allComplete: false,
          checklist: [done],
          pendingActions: ["update the changelog"],
        },
        text: "",
      },
      ok: true,
      complete: false,
      pending: ["update the changelog"],
    },
    {
      name: "docs/completion.md#closure-review allComplete true with an item not done contradicts itself and is not complete",
      response: {
        structuredOutput: { allComplete: true, checklist: [done, notDone], pendingActions: [] },
        text: "",
      },
      ok: true,
      complete: false,
      pending: ["README updated"],
    },
    {
      name: "docs/completion.md#closure-review the review is read from the text when there is no structured output",
      response: {
        text: `Review:\n${JSON.stringify({ allComplete: true, checklist: [done], pendingActions: [] })}`,
      },
      ok: true,
      complete: true,
    },
    {
      name: "docs/completion.md#closure-review an answer with extra fields does not match the fixed schema",
      response: {
        structuredOutput: {
          allComplete: true,
          checklist: [{ ...done, note: "x" }],
          pendingActions: [],
        },
        text: "",
      },
      ok: false,
      error: "/checklist/0",
    },
    {
      name: "docs/completion.md#closure-review an answer missing pendingActions does not match",
      response: { structuredOutput: { allComplete: true, checklist: [] }, text: "" },
      ok: false,
      error: "pendingActions",
    },
    {
      name: "docs/completion.md#closure-review no JSON answer is not a review",
      response: { text: "Looks good to me" },
      ok: false,
      error: "no JSON",
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const reading = readClosureReview(testCase.response, new SchemaValidators());
      expect(reading.ok).toBe(testCase.ok);
      if (reading.ok) {
        expect(reading.complete).toBe(testCase.complete);
        if (testCase.pending !== undefined)
          expect(reading.pendingActions).toEqual(testCase.pending);
      } else {
        expect(reading.error).toContain(testCase.error);
      }
    });
  }

  it("docs/completion.md#closure-review the fixed schema forbids additional properties on every object", () => {
    const objects: Record<string, unknown>[] = [];
    const walk = (value: unknown) => {
      if (typeof value !== "object" || value === null) return;
      const record = value as Record<string, unknown>;
      if (record.type === "object") objects.push(record);
      for (const child of Object.values(record)) walk(child);
    };
    walk(CLOSURE_REVIEW_SCHEMA);
    expect(objects.length).toBe(2);
    for (const object of objects) expect(object.additionalProperties).toBe(false);
    expect(Object.isFrozen(CLOSURE_REVIEW_SCHEMA)).toBe(true);
  });

  it("docs/completion.md#closure-review the review prompt is steps/{c2}/{c3}/f_default.md", () => {
    expect(closureReviewWords("steps", { c2: "complete", c3: "issue" })).toEqual({
      c1: "steps",
      c2: "complete",
      c3: "issue",
      edition: "default",
    });
  });
});
