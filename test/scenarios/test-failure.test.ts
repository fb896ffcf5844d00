import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readRunState } from "../../src/record/run-record.js";
import { AgentRunner } from "../../src/run/index.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { COMMIT_ALL, DONE, FIXED_ADD, makeTaskRepo, runTask } from "./support/task-agent.js";

describe("scenario: the model declares done while a test fails", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("scenario a: a done declaration while a test fails gets the test-failed prompt naming it, then completes", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ success: true, status: "completed", iterations: 2 });
    const retryPrompt = backend.calls[1]?.prompt ?? "";
    expect(retryPrompt).toContain("Tests are failing");
    expect(retryPrompt).toContain("adds two numbers");
    expect(log.of("retry-select").map((event) => event.pattern)).toEqual(["test-failed"]);
    const failedRun = log.of("validator-end").find((event) => !event.valid);
    expect(failedRun?.validator).toBe("tests-pass");
    // The completion step has no responseFormat, so no format check runs (docs/completion.md#format-check).
    expect(log.of("format-check")).toEqual([]);
    const state = await readRunState(result.runDir);
    expect(state.status).toBe("completed");
    const saved = await readFile(join(result.runDir, "prompts", "iteration-002.md"), "utf8");
    expect(saved).toBe(retryPrompt);
  });

  it("runs the same through the AgentRunner object", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const result = await new AgentRunner().run({
      agent: setup.agent,
      backend,
      cwd: setup.repo.dir,
      task: { kind: "text", title: "fix add", body: "" },
    });
    expect(result).toMatchObject({ success: true, status: "completed", iterations: 1 });
  });
});
