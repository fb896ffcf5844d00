import { describe, expect, it } from "vitest";
import { CloserError } from "../../src/errors.js";
import { exitCodeOfError, exitCodeOfOutcome, type RunOutcome } from "../../src/run/index.js";

function outcome(change: Partial<RunOutcome>): RunOutcome {
  return {
    success: false,
    status: "max_iterations",
    reason: "",
    iterations: 1,
    runId: "r",
    runDir: "/r",
    costUsd: 0,
    warnings: [],
    ...change,
  };
}

describe("exit codes", () => {
  it.each([
    { name: "completed", change: { success: true, status: "completed" }, code: 0 },
    {
      name: "completed with a failed GitHub step",
      change: { success: false, status: "completed" },
      code: 1,
    },
    { name: "max_iterations", change: { status: "max_iterations" }, code: 1 },
    { name: "retries_exhausted", change: { status: "retries_exhausted" }, code: 1 },
    { name: "budget_exhausted", change: { status: "budget_exhausted" }, code: 1 },
    { name: "aborted by onFailure: abort", change: { status: "aborted" }, code: 1 },
    {
      name: "a configuration error",
      change: { status: "error", errorCode: "config_error" },
      code: 2,
    },
    {
      name: "a validation error",
      change: { status: "error", errorCode: "validation_error" },
      code: 2,
    },
    { name: "a failed login", change: { status: "error", errorCode: "auth_error" }, code: 3 },
    { name: "a backend failure", change: { status: "error", errorCode: "backend_error" }, code: 3 },
  ] as const)("$name exits $code", ({ change, code }) => {
    expect(exitCodeOfOutcome(outcome(change))).toBe(code);
  });

  it("an aborted run stopped by a signal exits 130", () => {
    expect(exitCodeOfOutcome(outcome({ status: "aborted" }), { interrupted: true })).toBe(130);
  });

  it("splits GitHub errors into configuration (2) and transient (1)", () => {
    const github = (message: string, found?: string) =>
      new CloserError("github_error", message, found === undefined ? {} : { found });
    expect(
      exitCodeOfError(github("GitHub rejected the token (401 Bad credentials)", "HTTP 401")),
    ).toBe(2);
    expect(exitCodeOfError(github("issue acme/widgets#9 not found (404)", "HTTP 404"))).toBe(2);
    expect(exitCodeOfError(github("GitHub refused to close issue (403): no", "HTTP 403"))).toBe(2);
    expect(exitCodeOfError(github("GitHub rate limit reached; try again later", "HTTP 403"))).toBe(
      1,
    );
    expect(exitCodeOfError(github("GitHub rate limit reached", "HTTP 429"))).toBe(1);
    expect(exitCodeOfError(github("GitHub request to read x failed (502): bad", "HTTP 502"))).toBe(
      1,
    );
    expect(exitCodeOfError(github("could not reach GitHub at http://x: refused", "HTTP 500"))).toBe(
      1,
    );
    expect(exitCodeOfError(github('the repository has no "origin" remote'))).toBe(2);
    expect(exitCodeOfError(new CloserError("usage_error", "bad"))).toBe(2);
    expect(exitCodeOfError(new Error("bug"))).toBe(1);
  });
});
