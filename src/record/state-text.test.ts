import { describe, expect, it } from "vitest";
import type { Baseline } from "../ports/baseline.js";
import { RUN_STATE_VERSION, type RunState } from "../ports/run-state.js";
import { stringifyBounded } from "./bounded-json.js";
import { makeRedactor } from "./secret-redactor.js";
import { makeStateText } from "./state-text.js";

const SECRET = "hunter2-secret-value";

function baselineWith(tests: number, extra = ""): Baseline {
  return {
    takenAt: "2030-01-01T00:00:00.000Z",
    commit: "abc123",
    checks: [{ validator: "tests", valid: false }],
    dirtyFiles: ["notes.txt", `token.txt ${SECRET}`],
    inventories: {
      tests: {
        runner: "vitest",
        complete: true,
        tests: Array.from({ length: tests }, (_, index) => ({
          name: `suite > case ${index}${extra}`,
          state: index % 2 === 0 ? "passed" : "failed",
        })),
      },
    } as unknown as Baseline["inventories"],
    protectedFiles: { "vitest.config.ts": "f00d" },
    gitState: {},
  };
}

function stateWith(baseline: Baseline | undefined, iteration: number): RunState {
  return {
    version: RUN_STATE_VERSION,
    runId: "run-1",
    agent: "iterator",
    task: { kind: "text", title: `fix it ${SECRET}`, body: "x".repeat(3000) },
    args: {},
    cwd: "/tmp/work",
    status: "running",
    reason: "",
    iteration,
    stepId: "initial.issue",
    counters: { failedChecks: 0, formatRetries: 0, undecidableStreak: 0 },
    totals: {
      costUsd: 0,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      backendMs: 0,
    },
    startedAt: "2030-01-01T00:00:00.000Z",
    updatedAt: "2030-01-01T00:00:00.000Z",
    sideEffects: [],
    warnings: [],
    ...(baseline === undefined ? {} : { baseline }),
  };
}

describe("makeStateText", () => {
  const redact = makeRedactor({ API_TOKEN: SECRET });
  const plain = (state: RunState) => `${stringifyBounded(state, redact, 1000, 2)}\n`;

  it("writes the same text as serialising the whole state, before and after the baseline", () => {
    const text = makeStateText(redact, 1000);
    const first = baselineWith(2000);
    const second = baselineWith(3, " $& $1 $$");
    for (const state of [
      stateWith(undefined, 0),
      stateWith(first, 1),
      stateWith(first, 2),
      stateWith(second, 3),
      stateWith(baselineWith(0), 4),
    ]) {
      const written = text(state);
      expect(written).toBe(plain(state));
      expect(written).not.toContain(SECRET);
      expect(JSON.parse(written)).toEqual(JSON.parse(plain(state)));
    }
  });

  it("a string equal to its stand-in stays a string of the state", () => {
    const text = makeStateText(redact, 1000);
    const state = { ...stateWith(baselineWith(1), 1), reason: "\u0000closer:baseline\u0000" };
    expect(text(state)).toBe(plain(state));
  });
});
