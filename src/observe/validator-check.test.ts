import { describe, expect, it } from "vitest";
import { validatorCheck } from "./validator-check.js";

describe("docs/completion.md#cached-verdicts the run view of a reused outcome", () => {
  const end = { type: "validator-end", iteration: 2, validator: "tests-pass", params: {} };

  it("keeps the cached flag of a validator-end", async () => {
    const check = await validatorCheck({ ...end, valid: true, durationMs: 0, cached: true }, "/");
    expect(check).toMatchObject({ name: "tests-pass", valid: true, cached: true });
  });

  it("has none for a check that ran", async () => {
    const check = await validatorCheck({ ...end, valid: false, durationMs: 700 }, "/");
    expect(check.cached).toBeUndefined();
  });
});
