import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLOSURE_REVIEW_SCHEMA } from "../../src/completion/closure-review.js";
import type { Declaration } from "../../src/index.js";
import type { RunEvent } from "../../src/ports/events.js";
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

describe("scenarios: the harness's own checks", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("scenario g: a hanging validator is killed at its timeout, recorded, and the loop goes on", async () => {
    const setup = await makeTaskRepo({
      files: { ...FIXED_PROJECT, HANG: "while this file exists the check hangs\n" },
      validators: {
        "slow-check": {
          type: "command",
          command: "if [ -f HANG ]; then sleep 60; fi",
          timeoutMs: 300,
          failurePattern: "slow-check",
        },
      },
      conditions: ["slow-check"],
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      { files: { HANG: null }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    const [hung, passed] = log.of("validator-end");
    expect(hung).toMatchObject({ validator: "slow-check", valid: false, timedOut: true });
    expect(hung?.durationMs).toBeLessThan(30_000);
    expect(passed).toMatchObject({ valid: true });
    expect(log.of("retry-select")[0]?.pattern).toBe("slow-check");
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("scenario j: a closure review that is not done puts its pending actions in the next prompt", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      completionStep: { closureReview: { c2: "complete", c3: "task" } },
      prompts: {
        "steps/retry/task/f_failed_review-rejected.md":
          "## Review not done\n{{#each pendingActions}}\n- todo: {{this}}\n{{/each}}\n",
      },
    });
    cleanup = setup.repo.cleanup;
    const notDone = {
      allComplete: false,
      checklist: [{ item: "tests pass", done: true, evidence: "node --test is green" }],
      pendingActions: ["document add() in the README"],
    };
    const allDone = { allComplete: true, checklist: [], pendingActions: [] };
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      { structuredOutput: notDone },
      { structuredOutput: DONE },
      { structuredOutput: allDone },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(backend.calls[1]?.schema).toEqual(CLOSURE_REVIEW_SCHEMA);
    expect(backend.calls[1]?.prompt).toContain("Review your work");
    expect(backend.calls[2]?.prompt).toContain("- todo: document add() in the README");
    expect(log.of("closure-review").map((event) => event.allComplete)).toEqual([false, true]);
    expect(log.of("retry-select")[0]?.pattern).toBe("review-rejected");
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("docs/completion.md#closure-review the closure review runs only after the validators pass", async () => {
    const setup = await makeTaskRepo({
      conditions: ["tests-pass"],
      completionStep: { closureReview: { c2: "complete", c3: "task" } },
    });
    cleanup = setup.repo.cleanup;
    const allDone = { allComplete: true, checklist: [], pendingActions: [] };
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
      { structuredOutput: allDone },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(backend.calls.map((call) => call.schema === CLOSURE_REVIEW_SCHEMA)).toEqual([
      false,
      false,
      true,
    ]);
    expect(log.of("closure-review").map((event) => event.iteration)).toEqual([2]);
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("docs/retry.md#cutting-params a long output is kept whole in the run record and cut, head and tail, for the prompt", async () => {
    const outputChars = 30_000;
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      validators: {
        noisy: {
          type: "command",
          command: `node -e "process.stderr.write('E'.repeat(${outputChars})); process.exit(1)"`,
          failurePattern: "noisy",
          extractParams: { errorOutput: "stderr" },
        },
      },
      patterns: { noisy: { description: "a noisy failure", params: ["errorOutput"] } },
      prompts: { "steps/retry/task/f_failed_noisy.md": "## Noisy\n{{errorOutput}}\n" },
      conditions: ["noisy"],
      runner: { maxIterations: 2 },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      { structuredOutput: WORKING },
    ]);
    const { result } = await runTask(setup, backend);

    expect(result.status).toBe("max_iterations");
    const events = (await readFile(join(result.runDir, "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as RunEvent);
    const noisy = events.find((event) => event.type === "validator-end");
    expect(noisy?.type === "validator-end" && noisy.params.errorOutput).toBe(
      "E".repeat(outputChars),
    );
    const retryPrompt = backend.calls[1]?.prompt ?? "";
    expect(retryPrompt).toMatch(/characters cut/);
    expect(retryPrompt.length).toBeLessThan(outputChars);
    expect(retryPrompt).toMatch(/^## Noisy\nE+\n\[\.\.\. \d+ characters cut \.\.\.\]\nE+/);
  });

  it("a validator whose command does not exist (exit 127) ends the run at the baseline with a configuration error, before any query", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      validators: {
        "lint-clean": {
          type: "command",
          command: "closer-no-such-linter --check",
          failurePattern: "test-failed",
        },
      },
      conditions: ["lint-clean"],
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([{ structuredOutput: DONE }]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "error", success: false, errorCode: "config_error" });
    expect(result.reason).toContain('the check "lint-clean" cannot run on the untouched tree');
    expect(result.reason).toContain(
      "install closer-no-such-linter or fix the command in steps_registry.json validators.lint-clean.command",
    );
    expect(backend.calls).toEqual([]);
    expect(log.of("validator-end")).toEqual([]);
    expect(log.of("baseline")[0]?.checks).toEqual([
      expect.objectContaining({ validator: "lint-clean", valid: false }),
    ]);
    expect(log.of("retry-select")).toEqual([]);
  });
});

describe("scenarios: external conditions of the task", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("an unmet external condition sends a retry naming it; the run completes once it holds", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    let pushed = false;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      {
        structuredOutput: DONE,
        act: () => {
          pushed = true;
        },
      },
    ]);
    const { result, log } = await runTask(setup, backend, {
      externalConditions: [
        {
          name: "branch pushed",
          check: async () =>
            pushed ? { ok: true } : { ok: false, detail: "origin lacks the branch" },
        },
      ],
    });

    expect(log.of("retry-select")[0]?.pattern).toBe("external-condition");
    expect(backend.calls[1]?.prompt).toContain("origin lacks the branch");
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("an external condition decides on the iteration's own structured output and summary", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE, toolsUsed: ["Bash"] },
      { structuredOutput: { ...DONE, pr_url: "https://example.invalid/pull/7" } },
    ]);
    const seen: Declaration[] = [];
    const { result } = await runTask(setup, backend, {
      externalConditions: [
        {
          name: "pull request named",
          check: async (declaration) => {
            seen.push(declaration);
            const output = declaration.structuredOutput as { pr_url?: string };
            return output.pr_url === undefined ? { ok: false, detail: "no pr_url" } : { ok: true };
          },
        },
      ],
    });

    expect(result).toMatchObject({ status: "completed", iterations: 2 });
    expect(seen.map((declaration) => declaration.iteration)).toEqual([1, 2]);
    expect(seen[0]?.iterationSummary).toMatchObject({
      status: "completed",
      nextAction: "complete",
      toolsUsed: ["Bash"],
    });
    expect(backend.calls[1]?.prompt).toContain("no pr_url");
  });
});
