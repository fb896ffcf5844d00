import { describe, expect, it } from "vitest";
import type { Declaration, ExternalCondition } from "../ports/declaration.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import { isComplete } from "./is-complete.js";
import type { CompletionCheck } from "./judge-outcomes.js";

const declaration: Declaration = {
  iteration: 3,
  checkId: "check-0123456789abcdef",
  status: "completed",
  structuredOutput: { status: "completed", pr_url: "https://example.invalid/pr/7" },
  iterationSummary: { iteration: 3, status: "completed", toolsUsed: ["Edit"], errors: [] },
};

const passed: CompletionCheck = { valid: true, outcomes: [] };
const failedTests: ValidatorOutcome = {
  validator: "tests-pass",
  valid: false,
  pattern: "test-failed",
  params: { failedTests: [{ name: "slugify trims", error: "expected a" }] },
  durationMs: 5,
  exitCode: 1,
};
const failed: CompletionCheck = {
  valid: false,
  pattern: "test-failed",
  params: failedTests.params,
  validator: "tests-pass",
  outcomes: [failedTests],
  failures: [failedTests],
};

function condition(
  name: string,
  ok: boolean,
  asked: string[] = [],
  detail?: string,
): ExternalCondition {
  return {
    name,
    check: async () => {
      asked.push(name);
      return detail === undefined ? { ok } : { ok, detail };
    },
  };
}

describe("isComplete", () => {
  it("docs/completion.md#external-conditions validators passed and every external condition holds: complete", async () => {
    const verdict = await isComplete({
      declaration,
      validation: passed,
      external: [
        condition("working tree clean", true),
        condition("commits on the task branch", true),
      ],
    });
    expect(verdict.complete).toBe(true);
  });

  it("docs/completion.md#external-conditions a failed validation is the first unmet condition, with its pattern and params", async () => {
    const asked: string[] = [];
    const verdict = await isComplete({
      declaration,
      validation: failed,
      external: [condition("clean", true, asked)],
    });
    expect(verdict.complete).toBe(false);
    if (verdict.complete) return;
    expect(verdict.failure.pattern).toBe("test-failed");
    expect(verdict.failure.name).toBe("tests-pass");
    expect(verdict.failure.detail).toContain("slugify trims");
    expect(asked).toEqual([]);
  });

  it("docs/completion.md#closure-review a closure review that is not complete yields review-rejected with its pending actions", async () => {
    const verdict = await isComplete({
      declaration,
      validation: passed,
      closureReview: {
        ok: true,
        review: {
          allComplete: false,
          checklist: [
            { item: "tests pass", done: true, evidence: "green" },
            { item: "README", done: false, evidence: "no section on add()" },
          ],
          pendingActions: ["add a test"],
        },
        complete: false,
        pendingActions: ["add a test", "README"],
      },
      external: [],
    });
    if (verdict.complete) throw new Error("expected incomplete");
    expect(verdict.failure.pattern).toBe("review-rejected");
    expect(verdict.failure.params).toEqual({
      pendingActions: ["add a test"],
      checklist: ["README: no section on add()"],
    });
  });

  it("docs/completion.md#closure-review an unreadable closure review is not complete", async () => {
    const verdict = await isComplete({
      declaration,
      validation: passed,
      closureReview: { ok: false, error: "the closure review gave no JSON answer" },
      external: [],
    });
    if (verdict.complete) throw new Error("expected incomplete");
    expect(verdict.failure.pattern).toBe("review-rejected");
    expect(String(verdict.failure.params.pendingActions)).toContain("no JSON answer");
  });

  it("docs/completion.md#external-conditions the first unmet external condition is returned and later ones are not asked", async () => {
    const asked: string[] = [];
    const verdict = await isComplete({
      declaration,
      validation: passed,
      external: [
        condition("working tree clean", true, asked),
        condition("commits on the task branch", false, asked, "no commits ahead of main"),
        condition("never asked", false, asked),
      ],
    });
    expect(asked).toEqual(["working tree clean", "commits on the task branch"]);
    if (verdict.complete) throw new Error("expected incomplete");
    expect(verdict.failure).toMatchObject({
      kind: "external",
      name: "commits on the task branch",
      pattern: "external-condition",
      params: { condition: "commits on the task branch", detail: "no commits ahead of main" },
    });
  });

  it("docs/completion.md#external-conditions each condition is given the declaration being checked, structured output and summary", async () => {
    const given: Declaration[] = [];
    const needsPullRequest: ExternalCondition = {
      name: "a pull request is named",
      check: async (checked) => {
        given.push(checked);
        const output = checked.structuredOutput as { pr_url?: unknown } | undefined;
        return typeof output?.pr_url === "string"
          ? { ok: true }
          : { ok: false, detail: "no pr_url" };
      },
    };
    expect(
      (await isComplete({ declaration, validation: passed, external: [needsPullRequest] }))
        .complete,
    ).toBe(true);
    const without = { ...declaration, structuredOutput: { status: "completed" } };
    const verdict = await isComplete({
      declaration: without,
      validation: passed,
      external: [needsPullRequest],
    });
    expect(verdict).toMatchObject({
      complete: false,
      failure: { params: { detail: "no pr_url" } },
    });
    expect(given.map((checked) => checked.iterationSummary.toolsUsed)).toEqual([
      ["Edit"],
      ["Edit"],
    ]);
  });

  it("docs/completion.md#external-conditions an external condition that throws is unmet, not a crash", async () => {
    const verdict = await isComplete({
      declaration,
      validation: passed,
      external: [
        {
          name: "branch state",
          check: async () => {
            throw new Error("git exited 128");
          },
        },
      ],
    });
    if (verdict.complete) throw new Error("expected incomplete");
    expect(verdict.failure.detail).toContain("git exited 128");
  });
});
