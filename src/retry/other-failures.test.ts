import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CheckFailure } from "../ports/check-failure.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import { renderPrompt } from "../prompts/render-prompt.js";
import { makeVariables } from "../prompts/variables.js";
import { decideFailure, outcomeFailures, renderOtherFailures } from "./other-failures.js";
import { buildRetryPrompt } from "./retry-prompt.js";

const protectedChanged: CheckFailure = {
  kind: "guard",
  name: "protected-changed",
  pattern: "protected-changed",
  params: { protectedPaths: ["package.json › scripts.test (changed)"] },
  detail: "protected paths changed: package.json",
};

const failingTests: ValidatorOutcome = {
  validator: "tests-pass",
  valid: false,
  durationMs: 12,
  pattern: "test-failed",
  params: { failedTests: [{ name: "adds two numbers", error: "expected 3, got -1" }] },
};

const passing: ValidatorOutcome = {
  validator: "git-clean",
  valid: true,
  durationMs: 3,
  params: {},
};

function retryFor(failure: CheckFailure) {
  return buildRetryPrompt({
    agentDir: path.join(os.tmpdir(), "closer-retry-no-such-agent"),
    c1: "steps",
    completionStep: { c2: "retry", c3: "task" },
    patternName: failure.pattern,
    patterns: {},
    params: failure.params,
    ...(failure.others === undefined ? {} : { others: failure.others }),
    attempt: 1,
    variables: makeVariables({
      parameters: {},
      iteration: 2,
      maxIterations: 5,
      runId: "run-1",
      checkId: "check-1",
      task: { kind: "text", title: "Fix add", body: "" },
    }),
    render: renderPrompt,
  });
}

describe("otherFailures", () => {
  it("docs/retry.md#also-found the first failure decides; the failing validators ride along", () => {
    const decided = decideFailure([
      undefined,
      protectedChanged,
      ...outcomeFailures([passing, failingTests]),
    ]);
    expect(decided).toMatchObject({ name: "protected-changed", pattern: "protected-changed" });
    expect(decided?.params).toBe(protectedChanged.params);
    expect(decided?.others?.map((other) => [other.name, other.pattern])).toEqual([
      ["tests-pass", "test-failed"],
    ]);
    expect(decideFailure([undefined])).toBeUndefined();
    expect(decideFailure([protectedChanged])).toBe(protectedChanged);
  });

  it("docs/retry.md#also-found the variable names each failure, its pattern, detail and params, cut", () => {
    const long = { ...failingTests, params: { errorOutput: `HEAD${"x".repeat(5000)}TAIL` } };
    const text = renderOtherFailures(outcomeFailures([long]), {
      maxChars: 200,
      maxNestedChars: 100,
      maxItems: 5,
    });
    expect(text).toContain('"tests-pass" failed (pattern "test-failed")');
    expect(text).toContain("characters cut");
    expect(text.length).toBeLessThan(1000);
    expect(renderOtherFailures([])).toBe("");
    expect(renderOtherFailures(undefined)).toBe("");
  });

  it("docs/retry.md#also-found a guard's built-in retry names the failing validators too", async () => {
    const decided = decideFailure([protectedChanged, ...outcomeFailures([failingTests])]);
    const prompt = await retryFor(decided as CheckFailure);
    expect(prompt.pattern).toBe("protected-changed");
    expect(prompt.templatePath).toBe("builtin:retry");
    expect(prompt.text).toContain("package.json › scripts.test (changed)");
    expect(prompt.text).toContain("The same check also found:");
    expect(prompt.text).toContain("adds two numbers");
    expect(prompt.text).toContain('"tests-pass" failed (pattern "test-failed")');
  });

  it("docs/retry.md#also-found with nothing else found, the retry text is as before", async () => {
    const prompt = await retryFor(protectedChanged);
    expect(prompt.text).not.toContain("also found");
  });
});
