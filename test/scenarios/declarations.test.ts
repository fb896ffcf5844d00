import { afterEach, describe, expect, it } from "vitest";
import { makeScriptedBackend } from "../../src/testing/index.js";
import {
  COMMIT_ALL,
  DONE,
  FIXED_PROJECT,
  makeTaskRepo,
  runTask,
  WORKING,
} from "./support/task-agent.js";

describe("scenarios: what the model declares", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("scenario b: declaring done with uncommitted files gets the git-dirty prompt listing them", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      {
        files: { "src/add.js": "export const add = (a, b) => a + b;\n", "NOTES.md": "notes\n" },
        structuredOutput: DONE,
      },
      { commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    const retryPrompt = backend.calls[1]?.prompt ?? "";
    expect(retryPrompt).toContain("Uncommitted changes");
    expect(retryPrompt).toContain("changed: src/add.js");
    expect(retryPrompt).toContain("untracked: NOTES.md");
    expect(log.of("retry-select")[0]?.pattern).toBe("git-dirty");
    expect(result).toMatchObject({ status: "completed", success: true, iterations: 2 });
  });

  it("scenario c: a model that never declares completion ends at max_iterations without a check", async () => {
    const setup = await makeTaskRepo({ runner: { maxIterations: 3 } });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: WORKING },
      { structuredOutput: WORKING },
      { structuredOutput: WORKING },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "max_iterations", success: false, iterations: 3 });
    expect(backend.calls).toHaveLength(3);
    expect(log.of("validator-start")).toEqual([]);
  });

  it("scenario d: checks that keep failing end the run with retries_exhausted", async () => {
    const setup = await makeTaskRepo({
      completionStep: { onFailure: { action: "retry", maxAttempts: 2 } },
      conditions: ["tests-pass"],
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend(
      Array.from({ length: 4 }, () => ({ structuredOutput: DONE })),
    );
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "retries_exhausted", success: false });
    // The checks fail maxAttempts times: one retry is sent, the second failure ends the run.
    expect(log.of("retry-select").map((event) => event.attempt)).toEqual([1]);
    expect(result.iterations).toBe(2);
    expect(log.of("validator-end").filter((event) => !event.valid)).toHaveLength(2);
    expect(result.reason).toContain("tests-pass");
  });

  it("scenario k: a completion verified on the last allowed iteration is completed", async () => {
    const setup = await makeTaskRepo({ runner: { maxIterations: 2 }, files: FIXED_PROJECT });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: WORKING },
      { structuredOutput: DONE },
    ]);
    const { result } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", success: true, iterations: 2 });
  });
});
