import { describe, expect, it } from "vitest";
import { BUILTIN_PATTERNS, builtinPatternsFor } from "./builtin-patterns.js";

describe("builtinPatternsFor", () => {
  it("leaves review-rejected out for a completion step without a closure review", () => {
    expect(builtinPatternsFor({}).map((pattern) => pattern.name)).toEqual([
      "format-error",
      "undecidable",
      "external-condition",
      "tests-removed",
      "protected-changed",
      "git-config-changed",
      "sandbox-refused",
      "tree-changed",
    ]);
  });

  it("gives every built-in pattern, with its params, for a step with a closure review", () => {
    const patterns = builtinPatternsFor({
      closureReview: { c2: "review", c3: "issue", session: "fresh", maxRejections: 3 },
    });
    expect(patterns).toEqual(Object.values(BUILTIN_PATTERNS));
    expect(patterns.find((pattern) => pattern.name === "review-rejected")?.params).toEqual([
      "pendingActions",
      "checklist",
    ]);
  });
});
