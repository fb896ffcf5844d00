import { describe, expect, it } from "vitest";
import { CloserError, GithubError } from "../../src/errors.js";
import { translateGithubError } from "../../src/github/translate-error.js";
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
    refutedDeclarations: 0,
    flaky: [],
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
    { name: "blocked by the closure review", change: { status: "blocked" }, code: 1 },
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
    const context = {
      subject: "issue acme/widgets#9",
      action: "read",
      apiUrl: "http://x",
      hasToken: true,
      now: () => 0,
    };
    // What Octokit throws: an HTTP status, and the response when GitHub answered.
    const github = (status: number, headers: Record<string, string> = {}) =>
      translateGithubError({ status, message: "no", response: { headers } }, context);
    expect(exitCodeOfError(github(401))).toBe(2);
    expect(exitCodeOfError(github(404))).toBe(2);
    expect(exitCodeOfError(github(403))).toBe(2);
    expect(exitCodeOfError(github(403, { "x-ratelimit-remaining": "0" }))).toBe(1);
    expect(exitCodeOfError(github(429))).toBe(1);
    expect(exitCodeOfError(github(502))).toBe(1);
    expect(
      exitCodeOfError(translateGithubError({ status: 500, message: "refused" }, context)),
    ).toBe(1);
    expect(exitCodeOfError(translateGithubError(new TypeError("fetch failed"), context))).toBe(1);
    expect(
      exitCodeOfError(
        new GithubError('the repository has no "origin" remote', { transient: false }),
      ),
    ).toBe(2);
    expect(exitCodeOfError(new CloserError("usage_error", "bad"))).toBe(2);
    expect(exitCodeOfError(new Error("bug"))).toBe(1);
  });

  it("reads whether a GitHub error is transient from its fields, never its message", () => {
    const limited = "GitHub rate limit reached; try again later";
    expect(exitCodeOfError(new GithubError(limited, { status: 403, transient: false }))).toBe(2);
    expect(exitCodeOfError(new CloserError("github_error", limited, { found: "HTTP 429" }))).toBe(
      2,
    );
    expect(exitCodeOfError(new GithubError("anything", { transient: true }))).toBe(1);
  });
});
