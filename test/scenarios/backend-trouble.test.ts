import { afterEach, describe, expect, it } from "vitest";
import { BACKOFF_LIMITS } from "../../src/loop/backoff.js";
import { readRunState } from "../../src/record/run-record.js";
import { makeScriptedBackend, scriptedError } from "../../src/testing/index.js";
import {
  COMMIT_ALL,
  DONE,
  FIXED_PROJECT,
  makeTaskRepo,
  runTask,
  WORKING,
} from "./support/task-agent.js";

describe("scenarios: the backend has trouble", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("scenario f: two rate limits, then success: completed, no retry attempt or iteration spent", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { error: scriptedError("rate_limit", { retryAfterMs: 45_000 }) },
      { error: scriptedError("rate_limit") },
      { structuredOutput: DONE },
    ]);
    const { result, log, clock } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", success: true, iterations: 1 });
    expect(backend.calls).toHaveLength(3);
    expect(new Set(backend.calls.map((call) => call.prompt)).size).toBe(1);
    expect(clock.sleeps[0]).toBe(45_000);
    expect(clock.sleeps[1]).toBeGreaterThanOrEqual(BACKOFF_LIMITS.baseMs);
    expect(log.of("backend-wait").map((event) => event.waitMs)).toEqual(clock.sleeps);
    expect(log.of("retry-select")).toEqual([]);
    expect((await readRunState(result.runDir)).counters.failedChecks).toBe(0);
  });

  it("an expired session is dropped and the iteration repeated in a new session with the summary", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: WORKING, sessionId: "session-a" },
      { error: scriptedError("session_expired") },
      { structuredOutput: DONE, sessionId: "session-b" },
    ]);
    const { result } = await runTask(setup, backend);

    expect(backend.calls[1]?.sessionId).toBe("session-a");
    expect(backend.calls[2]?.sessionId).toBeUndefined();
    expect(backend.calls[2]?.prompt).toContain("still working");
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("docs/loop.md#error-classes an expired session goes on in a new one that is told the iteration summary, even when the prompt had none", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { files: { "NOTES.md": "notes\n" }, structuredOutput: DONE, sessionId: "session-a" },
      { error: scriptedError("session_expired") },
      { commands: [COMMIT_ALL], structuredOutput: DONE, sessionId: "session-b" },
    ]);
    const { result } = await runTask(setup, backend);

    const [, expired, repeated] = backend.calls;
    expect(expired?.prompt).toContain("untracked: NOTES.md");
    expect(expired?.prompt).not.toContain("In iteration 1 you reported");
    expect(repeated?.sessionId).toBeUndefined();
    expect(repeated?.prompt).toContain("In iteration 1 you reported");
    expect(repeated?.prompt).toContain(expired?.prompt ?? "");
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("a fresh session policy never passes a session id", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      runner: { backend: { kind: "scripted", session: "fresh" } },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: WORKING },
      { structuredOutput: DONE },
    ]);
    await runTask(setup, backend);

    expect(backend.calls.map((call) => call.sessionId)).toEqual([undefined, undefined]);
  });

  it("a continue session policy passes the previous session id", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: WORKING, sessionId: "session-a" },
      { structuredOutput: DONE },
    ]);
    await runTask(setup, backend);

    expect(backend.calls.map((call) => call.sessionId)).toEqual([undefined, "session-a"]);
  });
});

describe("scenarios: an overloaded or unreachable model API is waited out", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it.each(["overloaded", "server_error", "connection"] as const)(
    "five %s answers, then success: completed in one iteration, five waits recorded",
    async (kind) => {
      const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
      cleanup = setup.repo.cleanup;
      const backend = makeScriptedBackend([
        ...Array.from({ length: 5 }, () => ({ error: scriptedError(kind) })),
        { structuredOutput: DONE },
      ]);
      const { result, log, clock } = await runTask(setup, backend);

      expect(result).toMatchObject({ status: "completed", success: true, iterations: 1 });
      const waits = log.of("backend-wait");
      expect(waits.map((event) => event.reason)).toEqual(Array(5).fill(kind));
      expect(waits.map((event) => event.attempt)).toEqual([1, 2, 3, 4, 5]);
      expect(clock.sleeps).toEqual([5_000, 10_000, 20_000, 40_000, 80_000]);
      expect(new Set(backend.calls.map((call) => call.prompt)).size).toBe(1);
      expect(log.of("iteration-start")).toHaveLength(1);
      expect(log.of("retry-select")).toEqual([]);
    },
  );

  it("honours the retry-after an overloaded API gives", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { error: scriptedError("overloaded", { retryAfterMs: 7_000 }) },
      { structuredOutput: DONE },
    ]);
    const { result, clock } = await runTask(setup, backend);

    expect(result.status).toBe("completed");
    expect(clock.sleeps).toEqual([7_000]);
  });

  it("past runner.budgets.transientWaitMs the run ends with error and a resume hint; --resume repeats the same iteration", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      runner: { budgets: { transientWaitMs: 20_000 } },
    });
    cleanup = setup.repo.cleanup;
    const failing = makeScriptedBackend(
      Array.from({ length: 5 }, () => ({ error: scriptedError("server_error") })),
    );
    const first = await runTask(setup, failing, { runId: "overloaded-run" });

    expect(first.result).toMatchObject({ status: "error", errorCode: "backend_error" });
    expect(first.result.reason).toContain("scripted server error");
    expect(first.result.reason).toContain("--resume overloaded-run");
    // 5 s and 10 s were waited; the next 20 s would pass the 20 s horizon.
    expect(first.clock.sleeps).toEqual([5_000, 10_000]);
    expect(failing.calls).toHaveLength(3);
    expect((await readRunState(first.result.runDir)).iteration).toBe(0);

    const working = makeScriptedBackend([{ structuredOutput: DONE }]);
    const { result, log } = await runTask(setup, working, {
      task: undefined,
      resume: "overloaded-run",
    });
    expect(result).toMatchObject({ status: "completed", iterations: 1 });
    expect(log.of("iteration-start").map((event) => event.iteration)).toEqual([1]);
    expect(working.calls[0]?.prompt).toBe(failing.calls[0]?.prompt);
  });
});
