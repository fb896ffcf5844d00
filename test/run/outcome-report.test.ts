import { describe, expect, it } from "vitest";
import { describeOutcome, formatBatchTable, type RunOutcome } from "../../src/run/index.js";

const COMPLETED: RunOutcome = {
  success: true,
  status: "completed",
  reason: "verified in iteration 2",
  iterations: 2,
  runId: "run-1",
  runDir: "/repo/.git/closer/runs/run-1",
  costUsd: 0.0391,
  warnings: [],
  refutedDeclarations: 0,
  flaky: [],
};

describe("describeOutcome", () => {
  it("leads with the verdict, iterations, cost and reason, and ends with the run folder", () => {
    expect(describeOutcome(COMPLETED)).toEqual([
      "completed after 2 iteration(s), $0.0391: verified in iteration 2",
      "run folder: /repo/.git/closer/runs/run-1",
    ]);
  });

  it("leaves out the verdict the progress display already showed", () => {
    const lines = describeOutcome(COMPLETED, { success: true, reason: COMPLETED.reason });
    expect(lines).toEqual(["run folder: /repo/.git/closer/runs/run-1"]);
  });

  it("says a verified run whose GitHub step failed is not finished, even after the loop's end", () => {
    const loopReason = "verified in iteration 1";
    const outcome: RunOutcome = {
      ...COMPLETED,
      success: false,
      reason: `${loopReason}, but the GitHub step "close" failed: 500 (the work is verified; finish it with: closer run fixer --resume run-1)`,
      issue: 5,
      sideEffects: {
        performed: ["label:done"],
        skipped: [],
        failed: { key: "close", message: "500" },
      },
    };
    const [headline, ...rest] = describeOutcome(outcome, { success: true, reason: loopReason });
    expect(headline).toMatch(/^verified but not finished after 2 iteration\(s\), \$0\.0391: /);
    expect(headline).toContain("finish it with: closer run fixer --resume run-1");
    expect(rest).toContain("GitHub: label:done");
  });

  it("names the terminal status of a run that did not complete", () => {
    const outcome: RunOutcome = {
      ...COMPLETED,
      success: false,
      status: "max_iterations",
      reason: "6 iterations without verified completion",
      worktree: { path: "/wt/closer-issue-5", branch: "closer/issue-5", baseBranch: "main" },
    };
    expect(describeOutcome(outcome)[0]).toMatch(/^not completed \(max_iterations\) after 2/);
    expect(describeOutcome(outcome)).toContain(
      "worktree: /wt/closer-issue-5 (branch closer/issue-5)",
    );
  });
});

describe("formatBatchTable", () => {
  it("lines up one row per issue; a verified run that is not finished is incomplete", () => {
    const table = formatBatchTable([
      { ...COMPLETED, issue: 5 },
      { ...COMPLETED, issue: 12, success: false },
    ]);
    const [header, first, second] = table.split("\n");
    expect(header).toMatch(/^issue\s+status\s+iterations\s+cost\s+worktree$/);
    expect(first).toMatch(/^#5\s+completed\s+2\s+\$0\.0391\s+-$/);
    expect(second).toMatch(/^#12\s+incomplete\s+2/);
    expect(first?.indexOf("completed")).toBe(second?.indexOf("incomplete"));
  });
});
