import { describe, expect, it } from "vitest";
import type { ValidatorOutcome } from "../ports/validator.js";
import { describeRefutedClaims, refutedClaims } from "./refuted-claims.js";

function outcome(validator: string, valid: boolean, more: Partial<ValidatorOutcome> = {}) {
  return { validator, valid, params: {}, durationMs: 1, ...more } satisfies ValidatorOutcome;
}

/** The completion answer of the design's `complete.issue` schema. */
const DECLARATION = {
  stepId: "complete.issue",
  status: "completed",
  summary: "done",
  validation: {
    git_clean: true,
    type_check_passed: true,
    tests_passed: true,
    lint_passed: false,
  },
  evidence: { git_status_output: "", type_check_output: "Found 0 errors." },
};

describe("refutedClaims", () => {
  it("names each claim a failed check refutes, with the check's command and what it found", () => {
    const outcomes = [
      outcome("git-clean", true, { command: "git status --porcelain" }),
      outcome("type-check", false, {
        command: "npx tsc --noEmit",
        exitCode: 2,
        stdout: "src/a.ts(3,1): error TS2304: Cannot find name 'x'.\n",
      }),
      outcome("tests", true),
    ];
    expect(refutedClaims(DECLARATION, outcomes)).toEqual([
      {
        claim: "validation.type_check_passed",
        reported: true,
        validator: "type-check",
        command: "npx tsc --noEmit",
        found: "src/a.ts(3,1): error TS2304: Cannot find name 'x'.",
      },
      {
        claim: "evidence.type_check_output",
        reported: "Found 0 errors.",
        validator: "type-check",
        command: "npx tsc --noEmit",
        found: "src/a.ts(3,1): error TS2304: Cannot find name 'x'.",
      },
    ]);
  });

  it("matches a claim named after the first words of the validator's command", () => {
    const found = refutedClaims(DECLARATION, [
      outcome("clean-tree", false, { command: "git status --porcelain", stdout: " M src/a.ts\n" }),
    ]);
    expect(found).toEqual([
      {
        claim: "evidence.git_status_output",
        reported: "",
        validator: "clean-tree",
        command: "git status --porcelain",
        found: "M src/a.ts",
      },
    ]);
    // One word is not enough: `npm_passed` does not name every command that starts with `npm`.
    expect(
      refutedClaims({ validation: { npm_passed: true } }, [
        outcome("x", false, { command: "npm test" }),
      ]),
    ).toEqual([]);
  });

  it("matches a validator named with an ending of its own", () => {
    const found = refutedClaims(DECLARATION, [outcome("tests-pass", false, { stderr: "boom" })]);
    expect(found.map((claim) => claim.claim)).toEqual(["validation.tests_passed"]);
  });

  it("matches plural and singular names, and prefers stderr over stdout", () => {
    const found = refutedClaims(DECLARATION, [
      outcome("test", false, { command: "npm test", stderr: "not ok 1 - adds\n", stdout: "TAP\n" }),
    ]);
    expect(describeRefutedClaims(found)).toEqual([
      "you reported validation.tests_passed: true; `npm test` failed: not ok 1 - adds",
    ]);
  });

  it("refutes nothing the model reported as failing, nothing that passed, was stopped or never ran", () => {
    expect(refutedClaims(DECLARATION, [outcome("lint", false, { stderr: "1 problem" })])).toEqual(
      [],
    );
    expect(refutedClaims(DECLARATION, [outcome("tests", true)])).toEqual([]);
    expect(refutedClaims(DECLARATION, [outcome("tests", false, { aborted: true })])).toEqual([]);
    expect(refutedClaims(DECLARATION, [outcome("e2e", false, { stderr: "boom" })])).toEqual([]);
  });

  it("reads nothing from a declaration without claims or with claims of the wrong shape", () => {
    const failing = [outcome("tests", false, { stderr: "boom" })];
    expect(refutedClaims(undefined, failing)).toEqual([]);
    expect(refutedClaims("tests passed", failing)).toEqual([]);
    expect(refutedClaims({ validation: ["tests_passed"] }, failing)).toEqual([]);
    expect(refutedClaims({ validation: { tests_passed: "yes" } }, failing)).toEqual([]);
  });

  it("says a timeout, or the pattern and exit code when the check printed nothing", () => {
    const [timedOut] = refutedClaims(DECLARATION, [outcome("tests", false, { timedOut: true })]);
    expect(timedOut?.found).toBe("it timed out");
    const [silent] = refutedClaims(DECLARATION, [
      outcome("git-clean", false, { pattern: "git-dirty", exitCode: 1 }),
    ]);
    expect(silent).toMatchObject({ claim: "validation.git_clean", found: "git-dirty (exit 1)" });
  });

  it("keeps what it found short", () => {
    const [claim] = refutedClaims(DECLARATION, [
      outcome("tests", false, {
        stderr: ["a", "b", "c", "d", "e"].map((letter) => letter.repeat(1000)).join("\n"),
      }),
    ]);
    expect(claim?.found.length).toBeLessThanOrEqual(401);
    expect(claim?.found.endsWith("…")).toBe(true);
  });
});
