import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BACKOFF_LIMITS } from "../../src/loop/backoff.js";
import type { Backend } from "../../src/ports/backend.js";
import type { RunState } from "../../src/ports/run-state.js";
import { applyLastMark } from "../../src/record/state-marks.js";
import { makeScriptedBackend, scriptedError } from "../../src/testing/index.js";
import {
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  FIXED_PROJECT,
  makeTaskRepo,
  runTask,
  WORKING,
} from "./support/task-agent.js";

const ALWAYS_FAILS = {
  "always-fails": { type: "command", command: "exit 1", failurePattern: "test-failed" },
};

describe("docs/loop.md: the rules the loop keeps", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("docs/loop.md#rule-1: only a completion signal starts the checks; without one the loop goes to the next step", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: WORKING },
      { structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(log.of("validator-end").map((event) => event.iteration)).toEqual([2]);
    expect(log.of("iteration-start").map((event) => event.step)).toEqual([
      "initial.task",
      "continuation.task",
    ]);
    expect(backend.calls[1]?.prompt).toContain("# Continue");
    expect(result.status).toBe("completed");
  });

  it("docs/loop.md#rule-2: a failed check always reaches the model: every check is followed by a query with the retry prompt", async () => {
    const setup = await makeTaskRepo({
      validators: ALWAYS_FAILS,
      conditions: ["always-fails"],
      runner: { maxIterations: 3 },
      completionStep: { onFailure: { action: "retry", maxAttempts: 10 } },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend(
      Array.from({ length: 3 }, () => ({ structuredOutput: DONE })),
    );
    const { result, log } = await runTask(setup, backend);

    expect(result.status).toBe("max_iterations");
    expect(log.of("validator-end").map((event) => event.iteration)).toEqual([1, 2, 3]);
    expect(backend.calls).toHaveLength(3);
    for (const call of backend.calls.slice(1)) expect(call.prompt).toContain("Tests are failing");
    expect(log.of("prompt").map((event) => event.kind)).toEqual(["step", "retry", "retry"]);
  });

  it("docs/loop.md#rule-3: the next prompt states the previous declaration and what the checks found", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: WORKING },
      { structuredOutput: DONE },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result } = await runTask(setup, backend);

    expect(backend.calls[1]?.prompt).toContain("still working");
    const retry = backend.calls[2]?.prompt ?? "";
    expect(retry).toContain("status: completed");
    expect(retry).toContain("next action: complete");
    expect(retry).toContain("reason: tests pass");
    expect(retry).toContain('the check "tests-pass" failed');
    expect(retry).toContain("adds two numbers");
    expect(result.status).toBe("completed");
  });

  it("docs/loop.md#rule-4: an overload waits with exponential backoff and repeats the same iteration", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { error: scriptedError("overloaded") },
      { error: scriptedError("server_error") },
      { error: scriptedError("connection") },
      { structuredOutput: DONE },
    ]);
    const { result, clock, log } = await runTask(setup, backend);

    expect(clock.sleeps).toHaveLength(3);
    expect(clock.sleeps[1]).toBe(2 * (clock.sleeps[0] ?? 0));
    expect(clock.sleeps[2]).toBe(2 * (clock.sleeps[1] ?? 0));
    expect(log.of("iteration-start")).toHaveLength(1);
    expect(result).toMatchObject({ status: "completed", success: true, iterations: 1 });
  });

  it("docs/loop.md#rule-4: rate limits spend no onFailure attempt: the first failed check after them still gets its retry", async () => {
    const setup = await makeTaskRepo({
      conditions: ["tests-pass"],
      completionStep: { onFailure: { action: "retry", maxAttempts: 2 } },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { error: scriptedError("rate_limit") },
      { error: scriptedError("overloaded") },
      { structuredOutput: DONE },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(log.of("backend-wait")).toHaveLength(2);
    expect(log.of("retry-select").map((event) => event.attempt)).toEqual([1]);
    expect(result).toMatchObject({ status: "completed", success: true, iterations: 2 });
  });

  it("docs/loop.md#rule-4: a timeout repeats the iteration without spending an iteration or a retry attempt", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { error: scriptedError("timeout") },
      { structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(backend.calls[1]?.prompt).toBe(backend.calls[0]?.prompt);
    expect(log.of("retry-select")).toEqual([]);
    expect(result).toMatchObject({ status: "completed", iterations: 1 });
  });

  it("docs/loop.md#rule-4: timeouts repeat only a bounded number of times, then the run ends with error", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend(
      Array.from({ length: 10 }, () => ({ error: scriptedError("timeout") })),
    );
    const { result } = await runTask(setup, backend);

    expect(backend.calls).toHaveLength(BACKOFF_LIMITS.maxTimeoutRepeats + 1);
    expect(result).toMatchObject({ status: "error", errorCode: "backend_error", iterations: 1 });
  });

  it("docs/loop.md#rule-4: rate limits wait only a bounded number of times", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend(
      Array.from({ length: 30 }, () => ({ error: scriptedError("rate_limit") })),
    );
    const { result, clock } = await runTask(setup, backend);

    expect(clock.sleeps).toHaveLength(BACKOFF_LIMITS.maxRateLimitWaits);
    expect(Math.max(...clock.sleeps)).toBeLessThanOrEqual(BACKOFF_LIMITS.maxMs);
    expect(result.status).toBe("error");
  });

  it("docs/loop.md#rule-5: every query carries the query timeout, and a query past it is answered as a timeout", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      runner: { budgets: { queryTimeoutMs: 100 } },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend(Array.from({ length: 5 }, () => ({ delayMs: 60_000 })));
    const { result, log } = await runTask(setup, backend);

    expect(backend.calls.map((call) => call.timeoutMs)).toEqual(
      Array.from({ length: BACKOFF_LIMITS.maxTimeoutRepeats + 1 }, () => 100),
    );
    expect(log.of("backend-end")[0]?.error?.kind).toBe("timeout");
    expect(result.status).toBe("error");
  });

  it("docs/loop.md#rule-5: a backend that ignores its timeout is cut off by the loop", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      runner: { budgets: { queryTimeoutMs: 50 } },
    });
    cleanup = setup.repo.cleanup;
    const signals: AbortSignal[] = [];
    const deaf: Backend = {
      name: "deaf",
      enforcesSchema: true,
      query: (request) => {
        signals.push(request.signal);
        return new Promise(() => {});
      },
    };
    const { result, log } = await runTask(setup, deaf);

    expect(signals.every((signal) => signal.aborted)).toBe(true);
    expect(log.of("backend-end").every((event) => event.error?.kind === "timeout")).toBe(true);
    expect(result).toMatchObject({ status: "error", errorCode: "backend_error" });
  });

  it("docs/loop.md#rule-5: a validator is killed at its timeoutMs", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      validators: {
        hangs: {
          type: "command",
          command: "sleep 60",
          timeoutMs: 200,
          failurePattern: "slow-check",
        },
      },
      conditions: ["hangs"],
      completionStep: { onFailure: { action: "abort", maxAttempts: 1 } },
    });
    cleanup = setup.repo.cleanup;
    const { result, log } = await runTask(setup, makeScriptedBackend([{ structuredOutput: DONE }]));

    expect(log.of("validator-end")[0]).toMatchObject({ timedOut: true, valid: false });
    expect(result.status).toBe("aborted");
  });

  it("docs/loop.md#rule-5: an abort that arrives just before a query reaches the backend as an aborted signal", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT });
    cleanup = setup.repo.cleanup;
    const controller = new AbortController();
    const backend = makeScriptedBackend([
      { structuredOutput: WORKING },
      { files: { "LATE.md": "written after the abort\n" }, structuredOutput: WORKING },
    ]);
    const { result } = await runTask(setup, backend, {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "backend-start" && event.iteration === 2) controller.abort();
      },
    });

    expect(backend.calls[1]?.signal.aborted).toBe(true);
    expect(existsSync(join(setup.repo.dir, "LATE.md"))).toBe(false);
    expect(result.status).toBe("aborted");
  });

  it("docs/loop.md: each query carries the step's resolved output schema", async () => {
    const setup = await makeTaskRepo({ conditions: ["tests-pass"] });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result } = await runTask(setup, backend);

    expect(result.status).toBe("completed");
    for (const call of backend.calls) {
      expect(call.schema).toMatchObject({
        type: "object",
        required: ["status"],
        additionalProperties: false,
        properties: { status: { enum: ["in_progress", "completed"] } },
      });
    }
  });

  it("docs/loop.md#rule-7: the record holds each iteration before the next query is sent (run.json and its marks), and the end in run.json", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const seen: { iteration: number; saved: RunState }[] = [];
    const runDir = join(setup.repo.dir, ".git", "runs", "watched");
    const backend = makeScriptedBackend([
      { structuredOutput: WORKING },
      { structuredOutput: WORKING },
      { structuredOutput: DONE },
    ]);
    const ends: string[] = [];
    const { result } = await runTask(setup, backend, {
      onEvent: (event) => {
        if (event.type === "run-end") ends.push(event.status);
        if (event.type === "backend-start") {
          // Read as a resume reads it: run.json as its last mark amends it (docs/record.md#state-marks).
          const text = readFileSync(join(runDir, "run.json"), "utf8");
          const marksFile = join(runDir, "run-marks.jsonl");
          const marks = existsSync(marksFile) ? readFileSync(marksFile, "utf8") : "";
          const saved = applyLastMark(text, JSON.parse(text), marks) as RunState;
          seen.push({ iteration: event.iteration, saved });
        }
      },
      runId: "watched",
      runsDir: join(setup.repo.dir, ".git", "runs"),
    });

    expect(result.runDir).toBe(runDir);
    expect(seen).toHaveLength(3);
    expect(ends).toEqual(["completed"]);
    for (const { iteration, saved } of seen) {
      expect(saved.iteration).toBe(iteration - 1);
      expect(saved.status).toBe("running");
    }
    const final = JSON.parse(readFileSync(join(result.runDir, "run.json"), "utf8")) as RunState;
    expect(final).toMatchObject({ status: "completed", iteration: 3 });
    expect(final.endedAt).toBeTruthy();
  });
});
