import { afterEach, describe, expect, it } from "vitest";
import { readRunState } from "../../src/record/run-record.js";
import { makeScriptedBackend, makeTestClock, scriptedError } from "../../src/testing/index.js";
import { DONE, FIXED_PROJECT, makeTaskRepo, runTask, WORKING } from "./support/task-agent.js";

const FAILING_CHECK = {
  validators: {
    "always-fails": { type: "command", command: "exit 3", failurePattern: "test-failed" },
  },
  conditions: ["always-fails"],
};

describe("docs/loop.md#rule-6: terminal states are distinct", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("docs/loop.md#rule-6: budget_exhausted when the cost reaches maxCostUsd", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      runner: { budgets: { maxCostUsd: 0.05 } },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend(
      Array.from({ length: 5 }, () => ({ structuredOutput: WORKING, costUsd: 0.03 })),
    );
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "budget_exhausted", success: false, iterations: 2 });
    expect(result.costUsd).toBeCloseTo(0.06);
    expect(log.of("budget").at(-1)?.exhausted).toBe("cost");
  });

  it("docs/loop.md#rule-6: budget_exhausted when the wall time reaches maxWallTimeMs", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      runner: { budgets: { maxWallTimeMs: 60_000 } },
    });
    cleanup = setup.repo.cleanup;
    const clock = makeTestClock();
    const backend = makeScriptedBackend(
      Array.from({ length: 5 }, () => ({
        structuredOutput: WORKING,
        act: () => clock.advance(40_000),
      })),
    );
    const { result, log } = await runTask(setup, backend, { clock });

    expect(result).toMatchObject({ status: "budget_exhausted", iterations: 2 });
    expect(log.of("budget").at(-1)?.exhausted).toBe("time");
  });

  it("docs/loop.md#rule-6: budget_exhausted, without waiting, when a backend's reset time lies past the wall-time budget", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      runner: { budgets: { maxWallTimeMs: 60_000 } },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { error: scriptedError("rate_limit", { retryAfterMs: 120_000 }) },
      { structuredOutput: DONE },
    ]);
    const { result, clock } = await runTask(setup, backend);

    expect(clock.sleeps).toEqual([]);
    expect(backend.calls).toHaveLength(1);
    expect(result).toMatchObject({ status: "budget_exhausted", iterations: 1 });
  });

  it("docs/loop.md#rule-6: aborted when the signal aborts, with the record closed", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT });
    cleanup = setup.repo.cleanup;
    const controller = new AbortController();
    const backend = makeScriptedBackend([
      { structuredOutput: WORKING },
      { structuredOutput: WORKING, act: () => controller.abort() },
      { structuredOutput: WORKING },
    ]);
    const { result } = await runTask(setup, backend, { signal: controller.signal });

    expect(result).toMatchObject({ status: "aborted", success: false, iterations: 2 });
    expect((await readRunState(result.runDir)).status).toBe("aborted");
  });

  it("docs/loop.md#rule-6: aborted when a check fails and onFailure is abort", async () => {
    const setup = await makeTaskRepo({
      ...FAILING_CHECK,
      completionStep: { onFailure: { action: "abort", maxAttempts: 3 } },
    });
    cleanup = setup.repo.cleanup;
    const { result } = await runTask(setup, makeScriptedBackend([{ structuredOutput: DONE }]));

    expect(result).toMatchObject({ status: "aborted", success: false, iterations: 1 });
    expect(result.reason).toContain("always-fails");
  });

  it("docs/loop.md#rule-6: completed with a warning when a check fails and onFailure is skip", async () => {
    const setup = await makeTaskRepo({
      ...FAILING_CHECK,
      completionStep: { onFailure: { action: "skip", maxAttempts: 3 } },
    });
    cleanup = setup.repo.cleanup;
    const { result, log } = await runTask(setup, makeScriptedBackend([{ structuredOutput: DONE }]));

    expect(result).toMatchObject({ status: "completed", success: true, iterations: 1 });
    expect(result.warnings).toHaveLength(1);
    expect(log.of("warning")[0]?.message).toContain("always-fails");
    expect((await readRunState(result.runDir)).warnings).toEqual(result.warnings);
  });

  it("docs/loop.md#rule-6: error when authentication fails, before any check", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { error: scriptedError("auth", { message: "invalid x-api-key" }) },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({
      status: "error",
      success: false,
      errorCode: "auth_error",
      iterations: 1,
    });
    expect(result.reason).toContain("invalid x-api-key");
    expect(backend.calls).toHaveLength(1);
    expect(log.of("validator-start")).toEqual([]);
  });

  it("docs/loop.md#rule-6: error when the declaration stays undecidable past maxUndecidable", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, runner: { maxUndecidable: 2 } });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend(Array.from({ length: 5 }, () => ({ text: "hmm" })));
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "error", iterations: 3 });
    expect(result.reason).toContain("none");
    expect(log.of("decision").map((event) => event.undecidableStreak)).toEqual([1, 2, 3]);
  });

  it("docs/loop.md#rule-6: max_iterations when the cap is reached without verified completion", async () => {
    const setup = await makeTaskRepo({ ...FAILING_CHECK, runner: { maxIterations: 2 } });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([{ structuredOutput: DONE }, { structuredOutput: DONE }]);
    const { result } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "max_iterations", success: false, iterations: 2 });
  });

  it("docs/completion.md#quoted-output: the max_iterations reason names the last check that failed and what it found", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      runner: { maxIterations: 1 },
      validators: {
        "lint-clean": {
          type: "command",
          command:
            "echo '> proj@1.0.0 lint'; echo 'src/a.js:3:5 error no-undef x is not defined'; exit 1",
          failurePattern: "lint-error",
          extractParams: { errorOutput: "output" },
        },
      },
      conditions: ["lint-clean"],
    });
    cleanup = setup.repo.cleanup;
    const { result } = await runTask(setup, makeScriptedBackend([{ structuredOutput: DONE }]));

    expect(result.status).toBe("max_iterations");
    expect(result.reason).toMatch(
      /^no verified completion within 1 iterations; last failed: lint-clean \(lint-error\): .*x is not defined/,
    );
    expect(result.reason).not.toContain("> proj@1.0.0 lint");
  });

  it("docs/loop.md#rule-6: a completion verified on the last allowed iteration is completed", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, runner: { maxIterations: 1 } });
    cleanup = setup.repo.cleanup;
    const { result } = await runTask(setup, makeScriptedBackend([{ structuredOutput: DONE }]));

    expect(result).toMatchObject({ status: "completed", success: true, iterations: 1 });
  });

  it("docs/loop.md#rule-6: a template that can't be rendered ends the run with a configuration error", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT });
    cleanup = setup.repo.cleanup;
    const { result } = await runTask(setup, makeScriptedBackend([]), {
      agent: { ...setup.agent, registry: { ...setup.agent.registry, c1: "nowhere" } },
    });

    expect(result).toMatchObject({ status: "error", iterations: 0 });
    expect(result.reason).toContain("nowhere");
  });
});
