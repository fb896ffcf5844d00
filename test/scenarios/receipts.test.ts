import { afterEach, describe, expect, it } from "vitest";
import { readRunState } from "../../src/record/run-record.js";
import { outcomeJson } from "../../src/run/outcome-report.js";
import { makeScriptedBackend, scriptedError } from "../../src/testing/index.js";
import {
  BROKEN_PROJECT,
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  FIXED_PROJECT,
  makeTaskRepo,
  runTask,
  WORKING,
} from "./support/task-agent.js";

const USAGE = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 5, cacheCreationTokens: 1 };

/** Each receipt's iteration and reason, from the `backend-end` events. */
function reasonsOf(events: readonly { iteration: number; reason?: string }[]) {
  return events.map((event) => [event.iteration, event.reason]);
}

describe("scenarios: every query's receipt (docs/observe.md#receipts)", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("a test-failed retry and a rate-limited repeat are told apart from the initial query", async () => {
    const setup = await makeTaskRepo({ files: BROKEN_PROJECT });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE, costUsd: 0.2, usage: USAGE },
      { error: scriptedError("rate_limit", { retryAfterMs: 1_000 }), costUsd: 0.01 },
      {
        files: { "src/add.js": FIXED_ADD },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
        costUsd: 0.15,
        usage: USAGE,
      },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", iterations: 2 });
    expect(reasonsOf(log.of("backend-end"))).toEqual([
      [1, "initial"],
      [2, "retry:test-failed"],
      [2, "repeat:rate_limit"],
    ]);
    expect(result.costByReason).toEqual({
      initial: { queries: 1, costUsd: 0.2, durationMs: expect.any(Number), usage: USAGE },
      "retry:test-failed": {
        queries: 1,
        costUsd: 0.01,
        durationMs: expect.any(Number),
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      },
      "repeat:rate_limit": {
        queries: 1,
        costUsd: 0.15,
        durationMs: expect.any(Number),
        usage: USAGE,
      },
    });
    const state = await readRunState(result.runDir);
    expect(state.totals.costByReason).toEqual(result.costByReason);
    expect(outcomeJson({ ...result }).costByReason).toEqual(result.costByReason);
  });

  it("a format retry is retry:format", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      completionStep: { responseFormat: { type: "json", requiredFields: ["status"] } },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { text: "I fixed it.\nCOMPLETE", costUsd: 0.05 },
      { structuredOutput: DONE, costUsd: 0.03 },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(log.of("prompt")[1]).toMatchObject({ kind: "format-retry" });
    expect(reasonsOf(log.of("backend-end"))).toEqual([
      [1, "initial"],
      [2, "retry:format"],
    ]);
    expect(Object.keys(result.costByReason ?? {})).toEqual(["initial", "retry:format"]);
  });

  it("a closure review is its own receipt in the iteration it reviews", async () => {
    const setup = await makeTaskRepo({
      completionStep: { closureReview: { c2: "complete", c3: "task" } },
    });
    cleanup = setup.repo.cleanup;
    const approve = { allComplete: true, checklist: [], pendingActions: [] };
    const backend = makeScriptedBackend([
      {
        files: { "src/add.js": FIXED_ADD },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
        costUsd: 0.2,
      },
      { structuredOutput: approve, costUsd: 0.07 },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", iterations: 1 });
    expect(reasonsOf(log.of("backend-end"))).toEqual([
      [1, "initial"],
      [1, "closure-review"],
    ]);
    expect(result.costByReason?.["closure-review"]).toMatchObject({ queries: 1, costUsd: 0.07 });
  });

  it("a resumed run keeps its totals by reason and goes on with a continuation", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const first = await runTask(
      setup,
      makeScriptedBackend([{ structuredOutput: WORKING, costUsd: 0.1 }]),
      { maxIterations: 1 },
    );
    expect(first.result.status).toBe("max_iterations");
    const { result, log } = await runTask(
      setup,
      makeScriptedBackend([{ structuredOutput: DONE, costUsd: 0.2 }]),
      { maxIterations: 3, resume: first.result.runId },
    );

    expect(reasonsOf(log.of("backend-end"))).toEqual([[2, "continuation"]]);
    expect(result.costByReason).toMatchObject({
      initial: { queries: 1, costUsd: 0.1 },
      continuation: { queries: 1, costUsd: 0.2 },
    });
    expect(result.costUsd).toBeCloseTo(0.3);
  });
});
