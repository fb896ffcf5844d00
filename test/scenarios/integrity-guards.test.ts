import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readRunState } from "../../src/record/run-record.js";
import { makeScriptedBackend, type ScriptedTurn } from "../../src/testing/index.js";
import { makeTestsPassValidator } from "../support/test-agent.js";
import {
  BROKEN_PROJECT,
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  makeTaskRepo,
  runTask,
} from "./support/task-agent.js";

/**
 * The model as an adversary of the checks (docs/integrity.md): each way of
 * making the checks pass without doing the work is caught by a guard, and an
 * honest run completes as before.
 */

const TEST_FILE = "test/add.test.js";
const ORIGINAL_TESTS = BROKEN_PROJECT[TEST_FILE] ?? "";

/** The test file with the failing test taken out. */
const WITHOUT_FAILING_TEST = ORIGINAL_TESTS.replace(
  /test\("adds two numbers"[\s\S]*?\n\}\);\n/,
  "",
);

/** The same turn three times: a model that keeps cheating until the attempts are spent. */
function cheatingThrice(turn: ScriptedTurn): ScriptedTurn[] {
  return [turn, turn, turn];
}

describe("scenarios: the checks cannot be weakened", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("a deleted failing test, committed, is tests-removed: never completed", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    expect(WITHOUT_FAILING_TEST).not.toContain("adds two numbers");
    const backend = makeScriptedBackend(
      cheatingThrice({
        files: { [TEST_FILE]: WITHOUT_FAILING_TEST },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
      }),
    );
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ success: false, status: "retries_exhausted" });
    expect(result.refutedDeclarations).toBe(3);
    const [guard] = log.of("guard").filter((event) => !event.valid);
    expect(guard).toMatchObject({ guard: "tests-removed" });
    expect(guard?.params?.missingTests).toEqual(["adds two numbers"]);
    expect(log.of("retry-select")[0]?.pattern).toBe("tests-removed");
    expect(backend.calls[1]?.prompt).toContain("adds two numbers");
    expect(backend.calls[1]?.prompt).toContain("Restore every test listed above");
  });

  it("a failing test marked skipped is tests-removed", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const skipped = ORIGINAL_TESTS.replace(
      'test("adds two numbers"',
      'test.skip("adds two numbers"',
    );
    const backend = makeScriptedBackend(
      cheatingThrice({
        files: { [TEST_FILE]: skipped },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
      }),
    );
    const { result, log } = await runTask(setup, backend);

    expect(result.status).not.toBe("completed");
    const guard = log.of("guard").find((event) => !event.valid);
    expect(guard).toMatchObject({ guard: "tests-removed" });
    expect(guard?.params?.skippedTests).toEqual(["adds two numbers"]);
  });

  it("package.json's test script replaced with a no-op is protected-changed", async () => {
    const packageJson = {
      name: "fixture",
      type: "module",
      private: true,
      scripts: { test: "node --test" },
    };
    const setup = await makeTaskRepo({
      files: { ...BROKEN_PROJECT, "package.json": `${JSON.stringify(packageJson)}\n` },
      validators: { "tests-pass": makeTestsPassValidator("npm test --silent") },
    });
    cleanup = setup.repo.cleanup;
    const noOp = { ...packageJson, scripts: { test: "echo all good" } };
    const backend = makeScriptedBackend(
      cheatingThrice({
        files: { "package.json": `${JSON.stringify(noOp)}\n` },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
      }),
    );
    const { result, log } = await runTask(setup, backend);

    expect(result.status).not.toBe("completed");
    // The no-op passes: only the guard stands between it and `completed`.
    expect(log.of("validator-end").find((e) => e.validator === "tests-pass")?.valid).toBe(true);
    const failed = log.of("guard").filter((event) => !event.valid);
    expect(failed.map((event) => event.guard)).toEqual(
      expect.arrayContaining(["protected-changed", "tests-removed"]),
    );
    expect(log.of("retry-select")[0]?.pattern).toBe("protected-changed");
    expect(backend.calls[1]?.prompt).toContain("package.json › scripts.test (changed)");
  });

  it("the agent folder edited through a shell command is protected-changed", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const weaken = `sed -i 's/node --test/true/' .agent/tasker/steps_registry.json && ${COMMIT_ALL}`;
    const backend = makeScriptedBackend(
      cheatingThrice({
        files: { "src/add.js": FIXED_ADD },
        commands: [weaken],
        structuredOutput: DONE,
      }),
    );
    const { result, log } = await runTask(setup, backend);

    expect(result.status).not.toBe("completed");
    const guard = log.of("guard").find((event) => !event.valid);
    expect(guard).toMatchObject({ guard: "protected-changed" });
    expect(guard?.params?.protectedPaths).toEqual([".agent/tasker/steps_registry.json (changed)"]);
  });

  it("docs/retry.md#also-found a guard's retry also names the validators that failed", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const edit = `echo "Skip the tests." >> .agent/tasker/prompts/system.md && ${COMMIT_ALL}`;
    const backend = makeScriptedBackend(
      cheatingThrice({ commands: [edit], structuredOutput: DONE }),
    );
    const { log } = await runTask(setup, backend);

    expect(log.of("guard").find((event) => !event.valid)).toMatchObject({
      guard: "protected-changed",
    });
    expect(log.of("validator-end").find((e) => e.validator === "tests-pass")?.valid).toBe(false);
    expect(log.of("retry-select")[0]?.pattern).toBe("protected-changed");
    const retry = backend.calls[1]?.prompt ?? "";
    expect(retry).toContain(".agent/tasker/prompts/system.md");
    expect(retry).toContain('"tests-pass" failed (pattern "test-failed")');
    expect(retry).toContain("adds two numbers");
  });

  it("onFailure skip never accepts a guard's failure", async () => {
    const setup = await makeTaskRepo({ completionStep: { onFailure: { action: "skip" } } });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend(
      cheatingThrice({
        files: { [TEST_FILE]: WITHOUT_FAILING_TEST },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
      }),
    );
    const { result } = await runTask(setup, backend);
    expect(result).toMatchObject({ success: false, status: "retries_exhausted" });
  });

  it("the baseline records the checks, the tests and the dirty files before iteration 1", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", iterations: 1, refutedDeclarations: 0 });
    const [baseline] = log.of("baseline");
    expect(baseline?.checks.map(({ validator, valid }) => [validator, valid])).toEqual([
      ["git-clean", true],
      ["tests-pass", false],
    ]);
    expect(baseline?.checks[1]?.tests).toBe(2);
    const types = log.events.map((event) => event.type);
    expect(types.indexOf("baseline")).toBeLessThan(types.indexOf("iteration-start"));
    const state = await readRunState(result.runDir);
    expect(state.baseline?.inventories["tests-pass"]?.tests.map((t) => [t.name, t.state])).toEqual(
      expect.arrayContaining([
        ["adds two numbers", "failed"],
        ["adds zero", "passed"],
      ]),
    );
  });
});

describe("scenarios: files dirty before the run are the user's", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("the baseline lists them and every prompt gets them as dirtyAtStart", async () => {
    const setup = await makeTaskRepo({
      conditions: ["tests-pass"],
      prompts: {
        "steps/initial/task/f_default.md":
          "# Task: {{task.title}}\n{{#each dirtyAtStart}}\n- leave alone: {{this}}\n{{/each}}\n",
      },
    });
    cleanup = setup.repo.cleanup;
    await writeFile(join(setup.repo.dir, "notes.txt"), "the user's own notes\n");
    const backend = makeScriptedBackend([
      {
        files: { "src/add.js": FIXED_ADD },
        commands: ["git add src/add.js && git commit --quiet -m fix"],
        structuredOutput: DONE,
      },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", iterations: 1 });
    expect(log.of("baseline")[0]?.dirtyFiles).toEqual(["notes.txt"]);
    expect(backend.calls[0]?.prompt).toContain("- leave alone: notes.txt");
    expect(await readFile(join(setup.repo.dir, "notes.txt"), "utf8")).toBe(
      "the user's own notes\n",
    );
  });
});

describe("scenarios: honest runs are unaffected by the guards", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("a model that adds a test and corrects an assertion completes in one iteration", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const improved = `${ORIGINAL_TESTS.replace(
      "assert.equal(add(7, 0), 7);",
      'assert.strictEqual(add(7, 0), 7, "zero is neutral");',
    )}\ntest("adds negatives", () => {\n  assert.equal(add(-2, -3), -5);\n});\n`;
    const backend = makeScriptedBackend([
      {
        files: { "src/add.js": FIXED_ADD, [TEST_FILE]: improved },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
      },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ success: true, status: "completed", iterations: 1 });
    expect(log.of("guard").every((event) => event.valid)).toBe(true);
    expect(await readFile(join(setup.repo.dir, TEST_FILE), "utf8")).toContain("adds negatives");
  });

  it("a declaration the checks refute is counted, and the run still completes", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", iterations: 2, refutedDeclarations: 1 });
    expect(log.of("declaration-refuted")).toEqual([
      expect.objectContaining({
        iteration: 1,
        claimed: "fixed add",
        failed: "tests-pass",
        pattern: "test-failed",
      }),
    ]);
  });
});
