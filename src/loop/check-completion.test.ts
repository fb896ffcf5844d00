import { describe, expect, it } from "vitest";
import type { ValidatorOutcome } from "../ports/validator.js";
import { checkCompletion } from "./check-completion.js";

function outcome(validator: string, fields: Partial<ValidatorOutcome> = {}): ValidatorOutcome {
  return { validator, valid: true, params: {}, durationMs: 1, ...fields };
}

/** Validators by name; records the order they were asked for. */
function validators(table: Record<string, Partial<ValidatorOutcome>>) {
  const asked: string[] = [];
  const runOne = {
    run: async ({ validator: name }: { validator: string }) => {
      asked.push(name);
      return outcome(name, table[name]);
    },
  };
  return { asked, runOne };
}

const conditions = [{ validator: "git-clean" }, { validator: "tests-pass" }, { validator: "lint" }];

describe("checkCompletion", () => {
  it("docs/completion.md#validators every condition passing is valid, and all are recorded in order", async () => {
    const { asked, runOne } = validators({});
    const result = await checkCompletion(conditions, runOne);
    expect(result.valid).toBe(true);
    expect(asked).toEqual(["git-clean", "tests-pass", "lint"]);
    expect(result.outcomes.map((entry) => entry.validator)).toEqual(asked);
  });

  it("docs/completion.md#validators the first failing condition decides the pattern; all results are recorded", async () => {
    const { asked, runOne } = validators({
      "tests-pass": {
        valid: false,
        pattern: "test-failed",
        params: { failedTests: [{ name: "a" }] },
      },
      lint: { valid: false, pattern: "lint-error", params: {} },
    });
    const result = await checkCompletion(conditions, runOne);
    expect(asked).toEqual(["git-clean", "tests-pass", "lint"]);
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.pattern).toBe("test-failed");
    expect(result.validator).toBe("tests-pass");
    expect(result.params).toEqual({ failedTests: [{ name: "a" }] });
    expect(result.failures.map((entry) => entry.validator)).toEqual(["tests-pass", "lint"]);
    expect(result.outcomes).toHaveLength(3);
  });

  it("docs/completion.md#validators stopAtFirstFailure stops at the first failure", async () => {
    const { asked, runOne } = validators({ "git-clean": { valid: false, pattern: "git-dirty" } });
    const result = await checkCompletion(conditions, runOne, {
      stopAtFirstFailure: true,
      concurrency: 1,
    });
    expect(asked).toEqual(["git-clean"]);
    expect(result.valid).toBe(false);
  });

  it("docs/completion.md#validators a configuration error (exit 127) starts no later check and is flagged", async () => {
    const { asked, runOne } = validators({
      "tests-pass": {
        valid: false,
        pattern: "test-failed",
        exitCode: 127,
        configError: "command not found: npmm",
      },
    });
    const result = await checkCompletion(conditions, runOne, { concurrency: 1 });
    expect(asked).toEqual(["git-clean", "tests-pass"]);
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.configError).toContain("npmm");
    expect(result.brokenValidator).toBe("tests-pass");
  });

  it("docs/completion.md#validators a configuration error after an ordinary failure is still flagged", async () => {
    const { runOne } = validators({
      "git-clean": { valid: false, pattern: "git-dirty" },
      lint: { valid: false, pattern: "lint-error", configError: "exit 126" },
    });
    const result = await checkCompletion(conditions, runOne);
    if (result.valid) throw new Error("expected a failure");
    expect(result.pattern).toBe("git-dirty");
    expect(result.configError).toBe("exit 126");
  });

  it("docs/completion.md#validators no conditions is valid", async () => {
    const { runOne } = validators({});
    expect((await checkCompletion([], runOne)).valid).toBe(true);
  });
});
