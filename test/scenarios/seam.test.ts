import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CloserError } from "../../src/errors.js";
import type { Declaration } from "../../src/loop/index.js";
import { runAgent } from "../../src/loop/index.js";
import type { ResolvedAgent } from "../../src/ports/agent.js";
import type { Backend } from "../../src/ports/backend.js";
import type { EventListener } from "../../src/ports/events.js";
import { readRunState } from "../../src/record/run-record.js";
import { resolveRunSettings } from "../../src/run/index.js";
import type { FixtureRepo } from "../../src/testing/index.js";
import { makeScriptedBackend, makeTestClock } from "../../src/testing/index.js";
import {
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  FIXED_PROJECT,
  makeEventLog,
  makeTaskRepo,
  TASK,
  WORKING,
} from "./support/task-agent.js";

/** Settings of a run of the task agent in its fixture repository. */
function settingsOf(
  setup: { repo: FixtureRepo; agent: ResolvedAgent },
  backend: Backend,
  onEvent?: EventListener,
) {
  return resolveRunSettings({
    agent: setup.agent,
    backend,
    cwd: setup.repo.dir,
    task: TASK,
    clock: makeTestClock(),
    ...(onEvent === undefined ? {} : { onEvent }),
  });
}

describe("the seam between the loop and what runs around it", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  it("calls beforeChecks once per declaration, with its summary and check id, before any check", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const log = makeEventLog();
    const declarations: { declaration: Declaration; eventsBefore: number }[] = [];
    const backend = makeScriptedBackend([
      { structuredOutput: WORKING },
      { files: { "notes.txt": "left over\n" }, structuredOutput: DONE },
    ]);
    const settings = await settingsOf(setup, backend, log.listener);
    const result = await runAgent({
      ...settings,
      // Commits what the model left, as autoCommit does: the git-clean check then passes.
      beforeChecks: async (declaration) => {
        declarations.push({ declaration, eventsBefore: log.of("validator-start").length });
        await setup.repo.git("add", "--all");
        await setup.repo.git("commit", "--quiet", "-m", declaration.summary ?? "");
      },
    });

    expect(result).toMatchObject({ status: "completed", iterations: 2 });
    expect(declarations).toHaveLength(1);
    expect(declarations[0]?.eventsBefore).toBe(0);
    expect(declarations[0]?.declaration).toMatchObject({ iteration: 2, summary: "fixed add" });
    expect(declarations[0]?.declaration.checkId).toBe(backend.calls[1]?.env.CLOSER_CHECK_ID);
    expect((await setup.repo.git("log", "-1", "--format=%s")).stdout.trim()).toBe("fixed add");
  });

  it("returns the verifying iteration's summary and the checks that passed, and keeps them in run.json", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const settings = await settingsOf(
      setup,
      makeScriptedBackend([
        { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
      ]),
    );
    const result = await runAgent(settings);
    // The commit the checks ran on: the model's (docs/integrity.md#one-commit).
    const commit = (await setup.repo.git("rev-parse", "HEAD")).stdout.trim();
    const completion = { summary: "fixed add", checksPassed: ["git-clean", "tests-pass"], commit };
    expect(result.completion).toEqual(completion);
    expect((await readRunState(result.runDir)).completion).toEqual(completion);
  });

  it("records what runs after the loop in the run's own record, before its run-end", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const log = makeEventLog();
    const settings = await settingsOf(
      setup,
      makeScriptedBackend([{ structuredOutput: DONE }]),
      log.listener,
    );
    const outcome = await runAgent(settings, async (result, record) => {
      expect(result.status).toBe("completed");
      // run.json already says how the loop ended when the steps after it start.
      expect((await readRunState(result.runDir)).status).toBe("completed");
      await record.emit({ type: "side-effect", action: "close", target: "issue #1", ok: true });
      await record.recordEffect("close");
      return { ...result, closed: true };
    });

    expect(outcome).toMatchObject({ status: "completed", closed: true });
    const types = log.events.map((event) => event.type);
    expect(types.slice(-2)).toEqual(["side-effect", "run-end"]);
    const lines = (await readFile(join(outcome.runDir, "events.jsonl"), "utf8")).trim().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { type: string }).type).slice(-2)).toEqual([
      "side-effect",
      "run-end",
    ]);
    expect((await readRunState(outcome.runDir)).sideEffects).toEqual(["close"]);
  });

  it("docs/integrity.md#resume a completed run given to the loop again is refused: no backend query, nothing recorded", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const first = await runAgent(
      await settingsOf(setup, makeScriptedBackend([{ structuredOutput: DONE }])),
    );
    const state = await readRunState(first.runDir);
    const eventsBefore = await readFile(join(first.runDir, "events.jsonl"), "utf8");
    const backend = makeScriptedBackend([]);
    const settings = await settingsOf(setup, backend);
    const finished: string[] = [];
    const again = await runAgent(
      { ...settings, runId: state.runId, runDir: first.runDir, start: { resumed: state } },
      async (result) => {
        finished.push(result.status);
        return result;
      },
    ).catch((error: unknown) => error);

    expect(again).toBeInstanceOf(CloserError);
    expect((again as CloserError).message).toContain("already ended: completed");
    expect(backend.calls).toHaveLength(0);
    expect(finished).toEqual([]);
    expect(await readFile(join(first.runDir, "events.jsonl"), "utf8")).toBe(eventsBefore);
  });
});
