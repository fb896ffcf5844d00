import { afterEach, describe, expect, it } from "vitest";
import { readRunView } from "../../src/observe/read-run-view.js";
import { renderRunView } from "../../src/observe/render-run-view.js";
import { readRunState } from "../../src/record/run-record.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { COMMIT_ALL, DONE, FIXED_ADD, makeTaskRepo, runTask } from "./support/task-agent.js";

/** A declaration with the design's claims about its own checks (docs/completion.md#claims). */
const DONE_WITH_CLAIMS = {
  ...DONE,
  validation: { git_clean: true, tests_passed: true },
  evidence: { tests_output: "# pass 2" },
};

describe("scenario: the model reports checks that did not pass", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("a claim the checks refute is named in the record and in the retry prompt beside what the check found", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE_WITH_CLAIMS },
      {
        files: { "src/add.js": FIXED_ADD },
        commands: [COMMIT_ALL],
        structuredOutput: DONE_WITH_CLAIMS,
      },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", iterations: 2, refutedDeclarations: 1 });
    const [refuted] = log.of("declaration-refuted");
    expect(refuted?.claims).toHaveLength(2);
    expect(refuted?.claims?.[0]).toMatch(
      /^you reported validation\.tests_passed: true; `node --test` failed: .*adds two numbers/,
    );
    expect(refuted?.claims?.[1]).toMatch(
      /^you reported evidence\.tests_output: "# pass 2"; `node --test` failed: /,
    );
    // git_clean held: a true claim refutes nothing.
    expect(refuted?.claims?.join("\n")).not.toContain("git_clean");
    const retryPrompt = backend.calls[1]?.prompt ?? "";
    expect(retryPrompt).toContain(
      "you reported validation.tests_passed: true; `node --test` failed:",
    );
    // closer show: under the iteration's declaration.
    const view = await readRunView(result.runDir);
    expect(view.timeline[0]?.declaration?.refutedClaims).toEqual(refuted?.claims);
    expect(renderRunView(view)).toContain(
      "  refuted   you reported validation.tests_passed: true;",
    );
  });

  it("a retry template lists them through the variable refutedClaims", async () => {
    const setup = await makeTaskRepo({
      prompts: {
        "steps/retry/task/f_failed_test-failed.md":
          "Not done.\n{{#each refutedClaims}}\n* {{this}}\n{{/each}}\n",
      },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE_WITH_CLAIMS },
      { structuredOutput: DONE },
    ]);
    await runTask(setup, backend, { maxIterations: 2 });
    const retryPrompt = backend.calls[1]?.prompt ?? "";
    expect(retryPrompt).toMatch(/^Not done\.\n\* you reported validation\.tests_passed: true; /);
    expect(retryPrompt).toContain("* you reported evidence.tests_output:");
  });

  it("a declaration without claims has none in the record or the summary", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([{ structuredOutput: DONE }, { structuredOutput: DONE }]);
    const { result, log } = await runTask(setup, backend, { maxIterations: 1 });
    expect(log.of("declaration-refuted")[0]).not.toHaveProperty("claims");
    const state = await readRunState(result.runDir);
    expect(state.previousSummary).not.toHaveProperty("refutedClaims");
  });
});
