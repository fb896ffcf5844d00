/**
 * A run works from the definition its caller loaded: the files `loadAgent`
 * read are the ones copied into the run's snapshot and hashed, not the agent
 * folder as it is when the run starts (docs/integrity.md#definition-snapshot).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { applyCliOverrides } from "../../src/definition/apply-cli-overrides.js";
import { readDefinitionFiles } from "../../src/definition/definition-files.js";
import { loadAgent } from "../../src/definition/load-agent.js";
import { defaultRunsDir, readRunState } from "../../src/record/run-record.js";
import { resumeRun, runTask } from "../../src/run/index.js";
import { type FixtureRepo, makeScriptedBackend } from "../../src/testing/index.js";
import {
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  makeEventLog,
  makeTaskRepo,
  TASK,
  WORKING,
} from "../scenarios/support/task-agent.js";

const REGISTRY = ".agent/tasker/steps_registry.json";

/** Rewrites the agent's tests validator to one that always fails, and commits it. */
async function breakTheCheck(repo: FixtureRepo): Promise<void> {
  const file = join(repo.dir, REGISTRY);
  const registry = JSON.parse(await readFile(file, "utf8"));
  registry.validators["tests-pass"].command = "exit 1";
  await writeFile(file, `${JSON.stringify(registry, null, 2)}\n`);
  await repo.commitAll("the check changed after the agent was loaded");
}

describe("runTask: the definition is read once, by loadAgent", () => {
  let repo: FixtureRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  it("works from the files loaded, and records their hash, when the folder changed before the run started", async () => {
    const setup = await makeTaskRepo();
    repo = setup.repo;
    const loadedRegistry = await readFile(join(repo.dir, REGISTRY), "utf8");
    const loadedHash = (await readDefinitionFiles(join(repo.dir, ".agent/tasker"))).hash;
    await breakTheCheck(repo);
    const log = makeEventLog();

    const outcome = await runTask({
      agent: setup.agent,
      cwd: repo.dir,
      task: TASK,
      runId: "read-once",
      worktree: false,
      onEvent: log.listener,
      backend: makeScriptedBackend([
        { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
      ]),
    });

    expect(outcome).toMatchObject({ success: true, status: "completed" });
    const testsRun = log.of("validator-start").filter((event) => event.validator === "tests-pass");
    expect(testsRun.map((event) => event.command)).toEqual(["node --test"]);
    expect(log.of("definition-snapshot").map((event) => event.hash)).toEqual([loadedHash]);
    const runDir = join(defaultRunsDir(repo.dir), "read-once");
    expect((await readRunState(runDir)).definition?.hash).toBe(loadedHash);
    expect(await readFile(join(runDir, "definition", "steps_registry.json"), "utf8")).toBe(
      loadedRegistry,
    );
    expect((await readDefinitionFiles(join(runDir, "definition"))).hash).toBe(loadedHash);
  }, 60_000);

  it("a resumed run compares its snapshot with the agent folder as its caller loaded it", async () => {
    const setup = await makeTaskRepo();
    repo = setup.repo;
    const started = await runTask({
      agent: applyCliOverrides(setup.agent, { maxIterations: 1 }),
      cwd: repo.dir,
      task: TASK,
      runId: "resumed",
      worktree: false,
      backend: makeScriptedBackend([{ structuredOutput: WORKING }]),
    });
    expect(started.status).toBe("max_iterations");
    const agent = applyCliOverrides(await loadAgent("tasker", { cwd: repo.dir }), {
      maxIterations: 2,
    });
    await breakTheCheck(repo);
    const log = makeEventLog();

    const outcome = await resumeRun({
      agent,
      cwd: repo.dir,
      resume: "resumed",
      onEvent: log.listener,
      backend: makeScriptedBackend([
        { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
      ]),
    });

    // Loaded as the run started: no warning that the folder changed, and the run's checks are the snapshot's.
    const warnings = log.of("warning").map((event) => event.message);
    expect(warnings.filter((message) => message.includes("changed since the run started"))).toEqual(
      [],
    );
    const testsRun = log.of("validator-start").filter((event) => event.validator === "tests-pass");
    expect(testsRun.map((event) => event.command)).toEqual(["node --test"]);
    // The change to the agent folder is still caught, by the guard that watches it.
    const protectedGuard = log.of("guard").filter((event) => event.guard === "protected-changed");
    expect(protectedGuard.map((event) => event.valid)).toEqual([false]);
    expect(outcome.success).toBe(false);
  }, 60_000);
});
