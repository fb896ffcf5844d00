import { describe, expect, it } from "vitest";
import { compareTrails, describeDifference } from "./compare-trails.js";
import { decisionTrail } from "./decision-trail.js";

const RECORDED = [
  { type: "run-start", at: 1, maxIterations: 3 },
  { type: "prompt", iteration: 1, kind: "step", templatePath: "prompts/a.md", at: 2 },
  { type: "decision", iteration: 1, decision: "complete", source: "structured", checkId: "c-1" },
  { type: "validator-end", iteration: 1, validator: "lint", valid: false, pattern: "lint-failed" },
  { type: "validator-end", iteration: 1, validator: "tests", valid: true, durationMs: 40 },
  {
    type: "retry-select",
    iteration: 1,
    pattern: "lint-failed",
    templatePath: "r.md",
    attempt: 1,
    maxAttempts: 3,
  },
  { type: "run-end", status: "max_iterations", costUsd: 0.2 },
];

describe("docs/replay.md#what-is-compared", () => {
  it("ignores times, costs and ids: the same decisions are identical", () => {
    const replayed = RECORDED.map((event) => ({ ...event, at: 99, checkId: "c-9", costUsd: 7 }));
    expect(compareTrails(decisionTrail(RECORDED), decisionTrail(replayed))).toEqual([]);
  });

  it("reports one changed verdict as one line per decision it changed, not a shifted tail", () => {
    const replayed = RECORDED.map((event) =>
      event.type === "retry-select" ? { ...event, pattern: "test-failed" } : event,
    );
    const lines = compareTrails(decisionTrail(RECORDED), decisionTrail(replayed)).map(
      describeDifference,
    );
    expect(lines).toEqual(["iteration 1: retry pattern lint-failed → test-failed"]);
  });

  it("names what only one side decided, and the terminal state at the end", () => {
    const replayed = RECORDED.filter((event) => event.type !== "retry-select").map((event) =>
      event.type === "run-end" ? { ...event, status: "retries_exhausted" } : event,
    );
    const lines = compareTrails(decisionTrail(RECORDED), decisionTrail(replayed)).map(
      describeDifference,
    );
    expect(lines).toEqual([
      "iteration 1: retry pattern lint-failed → (none)",
      "iteration 1: retry template r.md → (none)",
      "iteration 1: retry attempt 1/3 → (none)",
      "end: terminal state max_iterations → retries_exhausted",
    ]);
  });
});
