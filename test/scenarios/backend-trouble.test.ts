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
