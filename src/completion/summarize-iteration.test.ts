import { describe, expect, it } from "vitest";
import type { ValidatorOutcome } from "../ports/validator.js";
import {
  describeOutcome,
  formatFailure,
  reviewFailure,
  undecidableFailure,
  validationFailure,
} from "./check-failure.js";
import { DEFAULT_COMPLETION_SIGNAL } from "./completion-signal.js";
import { decideCompletion } from "./decide-completion.js";
import { summarizeIteration } from "./summarize-iteration.js";

const declared = {
  status: "completed",
  summary: "Fixed slugify and added tests",
  next_action: { action: "complete", reason: "all tests pass" },
};

const testsFailed: ValidatorOutcome = {
  validator: "tests-pass",
  valid: false,
  pattern: "test-failed",
  params: {
    failedTests: [
      { name: "trims spaces" },
      { name: "lowercases" },
      { name: "dashes" },
      { name: "unicode" },
    ],
    errorOutput: "AssertionError: expected 'a b' to be 'a-b'\n    at test.js:3",
  },
  durationMs: 10,
  exitCode: 1,
};

describe("summarizeIteration", () => {
  it("docs/loop.md#rule-3: the declaration and the failed check are carried side by side", () => {
    const failure = validationFailure({
      valid: false,
      pattern: "test-failed",
      params: testsFailed.params,
      validator: "tests-pass",
      outcomes: [testsFailed],
      failures: [testsFailed],
    });
    const summary = summarizeIteration(
      4,
      { structuredOutput: declared, text: "ignored", toolsUsed: ["Edit", "Bash"] },
      { failure },
    );
    expect(summary).toMatchObject({
      iteration: 4,
      status: "completed",
      nextAction: "complete",
      reason: "all tests pass",
      summary: "Fixed slugify and added tests",
      toolsUsed: ["Edit", "Bash"],
      failedCheck: { validator: "tests-pass", pattern: "test-failed" },
    });
    expect(summary.failedCheck?.detail).toContain("trims spaces");
    expect(summary.failedCheck?.detail).toContain("+1 more");
  });

  it("docs/loop.md#rule-3: a declaration in the text is read when there is no structured output", () => {
    const summary = summarizeIteration(1, {
      text: `Done.\n${JSON.stringify(declared)}`,
      toolsUsed: [],
    });
    expect(summary.status).toBe("completed");
    expect(summary.nextAction).toBe("complete");
  });

  it("docs/loop.md#rule-3: a file or marker decision stands in for the status", () => {
    const decision = decideCompletion({
      text: "Fixed the parser.\nINCOMPLETE",
      completionSignal: DEFAULT_COMPLETION_SIGNAL,
      checkId: "c",
      checkStartedAtMs: 0,
      previousUndecidableStreak: 0,
      maxUndecidable: 3,
    });
    const summary = summarizeIteration(
      2,
      { text: "Fixed the parser.\nINCOMPLETE", toolsUsed: [] },
      { decision },
    );
    expect(summary.status).toBe("incomplete");
    expect(summary.summary).toContain("Fixed the parser.");
  });

  it("docs/loop.md#rule-3: backend errors and other findings are listed", () => {
    const summary = summarizeIteration(
      3,
      { text: "", toolsUsed: [], error: { message: "max turns reached" } },
      { errors: ["format retries exhausted"] },
    );
    expect(summary.errors).toEqual(["max turns reached", "format retries exhausted"]);
    expect(summary.failedCheck).toBeUndefined();
    expect(summary.summary).toBeUndefined();
  });
});

describe("check failures", () => {
  it.each([
    [
      "failed tests by name",
      testsFailed,
      "failedTests: trims spaces, lowercases, dashes (+1 more)",
    ],
    [
      "type errors by place",
      {
        ...testsFailed,
        params: { typeErrors: [{ file: "src/a.ts", line: 3, message: "TS2322" }] },
      },
      "typeErrors: src/a.ts:3 TS2322",
    ],
    [
      "the output's meaningful lines",
      { ...testsFailed, params: { errorOutput: "\n\nboom\nmore" } },
      "errorOutput: boom / more",
    ],
    [
      "the errors under a package manager's banner",
      {
        ...testsFailed,
        params: {
          errorOutput:
            "\n> proj@1.0.0 lint\n> eslint .\n\n/p/a.js\n  1:1  error  Unexpected var  no-var\n",
        },
      },
      "errorOutput: 1:1  error  Unexpected var  no-var",
    ],
    ["the exit code when nothing was extracted", { ...testsFailed, params: {} }, "exit code 1"],
    [
      "the exit code and what the check printed when nothing was extracted",
      {
        ...testsFailed,
        params: {},
        stderr: "> proj@1.0.0 test\n> vitest run\n\nsh: 1: vitest: not found\n",
      },
      "exit code 1: sh: 1: vitest: not found",
    ],
    ["a timeout", { ...testsFailed, timedOut: true }, "timed out"],
    [
      "a configuration error",
      { ...testsFailed, configError: "exit 127" },
      "configuration error: exit 127",
    ],
  ])("describeOutcome names %s", (_name, outcome, expected) => {
    expect(describeOutcome(outcome as ValidatorOutcome)).toBe(expected);
  });

  it("docs/retry.md#format-retries a format failure uses the format-error pattern with formatError and expectedFormat", () => {
    const failure = formatFailure(
      { valid: false, error: "no structured output" },
      { type: "json", requiredFields: ["status"] },
    );
    expect(failure.pattern).toBe("format-error");
    expect(failure.params).toEqual({
      formatError: "no structured output",
      expectedFormat: "a JSON object with the fields status",
    });
  });

  it("docs/retry.md#undecidable-retries an undecidable failure says which source and why", () => {
    const decision = decideCompletion({
      text: "COMPLETE",
      decisionFile: { text: '{"decision":"complete","check_id":"old"}', modifiedAtMs: 5 },
      completionSignal: DEFAULT_COMPLETION_SIGNAL,
      checkId: "new",
      checkStartedAtMs: 0,
      previousUndecidableStreak: 0,
      maxUndecidable: 3,
    });
    const failure = undecidableFailure(decision);
    expect(failure.pattern).toBe("undecidable");
    expect(failure.params.decisionSource).toBe("file-json");
    expect(String(failure.params.decisionReason)).toContain("check-id-mismatch");
    expect(String(failure.params.decisionReason)).toContain('"new"');
  });

  it("docs/completion.md#closure-review a closure failure carries the pending actions", () => {
    expect(reviewFailure(["write docs", "bump version"]).detail).toBe(
      "pending: write docs; bump version",
    );
  });

  it("docs/completion.md#validators other failing validators are named in the detail", () => {
    const lint: ValidatorOutcome = { ...testsFailed, validator: "lint", pattern: "lint-error" };
    const failure = validationFailure({
      valid: false,
      pattern: "test-failed",
      params: testsFailed.params,
      validator: "tests-pass",
      outcomes: [testsFailed, lint],
      failures: [testsFailed, lint],
    });
    expect(failure.detail).toContain("also failing: lint");
    expect(failure.detail.length).toBeLessThanOrEqual(200);
  });
});
