import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { CloserError } from "../../src/errors.js";
import { runCommand } from "../../src/process/shell-command.js";
import { defaultRunsDir, readRunState } from "../../src/record/run-record.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import {
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  FIXED_PROJECT,
  makeTaskRepo,
  runTask,
  WORKING,
} from "./support/task-agent.js";

const CRASH_SCRIPT = fileURLToPath(new URL("./support/crash-run.ts", import.meta.url));
const PACKAGE_ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("scenario h: the process dies mid-run", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("scenario h: a killed run leaves a valid record, and resuming sends the pending retry prompt and finishes", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const crashed = await runCommand({
      command: ["node", "--import", "tsx", CRASH_SCRIPT, setup.repo.dir, "crashed-run"],
      cwd: PACKAGE_ROOT,
      timeoutMs: 60_000,
    });
    expect(crashed.signal ?? String(crashed.exitCode)).toMatch(/SIGKILL|137/);

    const runDir = join(defaultRunsDir(setup.repo.dir), "crashed-run");
    const state = await readRunState(runDir);
    expect(state).toMatchObject({ status: "running", iteration: 1 });
    expect(state.pendingPrompt?.pattern).toBe("test-failed");
    const lines = (await readFile(join(runDir, "events.jsonl"), "utf8")).trim().split("\n");
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();

    const backend = makeScriptedBackend([
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend, {
      task: undefined,
      resume: "crashed-run",
    });

    expect(backend.calls[0]?.prompt).toBe(state.pendingPrompt?.text);
    expect(backend.calls[0]?.env.CLOSER_CHECK_ID).toBe(state.pendingPrompt?.checkId);
    expect(state.sessionId).toBeDefined();
    expect(backend.calls[0]?.sessionId).toBe(state.sessionId);
    expect(log.of("run-start")[0]?.resumed).toBe(true);
    expect(result).toMatchObject({
      status: "completed",
      iterations: 2,
      runId: "crashed-run",
      runDir,
    });

    const again = await runTask(setup, makeScriptedBackend([]), {
      task: undefined,
      resume: "crashed-run",
    }).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(CloserError);
    expect((again as CloserError).message).toContain("already ended: completed");
  });

  it("docs/record.md#state-marks: a run killed during the checks of iteration 2 resumes into those checks, which only the marks beside run.json hold", async () => {
    const setup = await makeTaskRepo({
      validators: {
        // Kills closer (its parent) while the checks of a declaration that left the marker run.
        killer: {
          type: "command",
          command: "if [ -f .closer/kill-now ]; then kill -9 $PPID; sleep 5; fi",
          failurePattern: "test-failed",
        },
      },
      conditions: ["tests-pass", "killer"],
    });
    cleanup = setup.repo.cleanup;
    const crashed = await runCommand({
      command: [
        "node",
        "--import",
        "tsx",
        CRASH_SCRIPT,
        setup.repo.dir,
        "killed-in-checks",
        "checks",
      ],
      cwd: PACKAGE_ROOT,
      timeoutMs: 60_000,
    });
    expect(crashed.signal ?? String(crashed.exitCode)).toMatch(/SIGKILL|137/);

    const runDir = join(defaultRunsDir(setup.repo.dir), "killed-in-checks");
    // run.json itself still holds a state from before iteration 2; the marks hold the rest:
    // iteration 1's refuted declaration, its retry, and iteration 2's checks under way.
    const written = JSON.parse(await readFile(join(runDir, "run.json"), "utf8"));
    expect(written.iteration).toBeLessThan(2);
    expect(written.checking).toBeUndefined();
    const state = await readRunState(runDir);
    expect(state).toMatchObject({ status: "running", iteration: 2, counters: { failedChecks: 1 } });
    expect(state.checking).toMatchObject({ iteration: 2 });

    await rm(join(setup.repo.dir, ".closer/kill-now"));
    const backend = makeScriptedBackend([]);
    const { result, log } = await runTask(setup, backend, {
      task: undefined,
      resume: "killed-in-checks",
    });

    expect(backend.calls).toHaveLength(0);
    expect(log.of("warning").map((event) => event.message)).toContainEqual(
      expect.stringContaining("stopped during the checks of iteration 2"),
    );
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("resuming a run that stopped goes on from its iteration, step and session", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      runner: { maxIterations: 1 },
    });
    cleanup = setup.repo.cleanup;
    const first = await runTask(
      setup,
      makeScriptedBackend([{ structuredOutput: WORKING, sessionId: "session-a" }]),
      { runId: "stopped-run" },
    );
    expect(first.result.status).toBe("max_iterations");

    const backend = makeScriptedBackend([{ structuredOutput: DONE }]);
    const { result, log } = await runTask(setup, backend, {
      task: undefined,
      resume: "stopped-run",
      maxIterations: 3,
    });

    expect(backend.calls[0]?.sessionId).toBe("session-a");
    expect(backend.calls[0]?.prompt).toContain("# Continue");
    expect(backend.calls[0]?.prompt).toContain("still working");
    expect(log.of("iteration-start")).toEqual([
      expect.objectContaining({ iteration: 2, step: "continuation.task" }),
    ]);
    expect(result).toMatchObject({ status: "completed", iterations: 2, runId: "stopped-run" });
  });

  it("resuming a run id that was never recorded is a clear error", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const error = await runTask(setup, makeScriptedBackend([]), { resume: "no-such-run" }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CloserError);
    expect((error as CloserError).code).toBe("not_found");
  });
});
