import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CloserError } from "../../src/errors.js";
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

const DECISION_FILE = ".closer/decision.json";

describe("scenarios: how the declaration arrives", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("scenario e: a declaration without structured output gets a format-error retry, then recovers", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      completionStep: { responseFormat: { type: "json", requiredFields: ["status"] } },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { text: "I fixed it.\nCOMPLETE" },
      { structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(log.of("decision")[0]).toMatchObject({ source: "marker", decision: "complete" });
    expect(log.of("format-check").map((event) => event.valid)).toEqual([false, true]);
    expect(log.of("prompt")[1]).toMatchObject({ kind: "format-retry" });
    expect(backend.calls[1]?.prompt).toContain("format-error");
    expect(log.of("validator-end")).toHaveLength(1);
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("format retries past maxFormatRetries leave a warning and the checks run anyway", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      completionStep: {
        responseFormat: { type: "json", requiredFields: ["status"] },
        maxFormatRetries: 1,
      },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([{ text: "COMPLETE" }, { text: "COMPLETE" }]);
    const { result, log } = await runTask(setup, backend);

    expect(log.of("format-check").map((event) => event.formatRetries)).toEqual([1, 2]);
    expect(log.of("validator-end").map((event) => event.iteration)).toEqual([2]);
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
    expect(result.warnings[0]).toContain("format");
  });

  it("scenario e: an answer with no readable declaration is INCOMPLETE with a retry saying why", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { text: "I think it is fine now." },
      { structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(log.of("decision")[0]).toMatchObject({
      source: "none",
      decision: "undecidable",
      undecidableStreak: 1,
    });
    expect(log.of("retry-select")[0]?.pattern).toBe("undecidable");
    expect(backend.calls[1]?.prompt).toContain("no-decision");
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("scenario i: a decision file with a stale check id is ignored, reported stale, and a marker can't override it", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      textOnly: true,
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      (request) => ({
        files: {
          [request.env.CLOSER_DECISION_FILE ?? ""]: JSON.stringify({
            decision: "complete",
            check_id: "check-from-yesterday",
          }),
        },
        text: "COMPLETE",
      }),
      (request) => ({
        files: {
          [request.env.CLOSER_DECISION_FILE ?? ""]: JSON.stringify({
            decision: "complete",
            check_id: request.env.CLOSER_CHECK_ID,
          }),
        },
        text: "done",
      }),
    ]);
    const { result, log } = await runTask(setup, backend);

    const [stale, fresh] = log.of("decision");
    expect(stale).toMatchObject({
      source: "file-json",
      decision: "undecidable",
      stale: true,
      checkIdMatch: false,
      reason: "check-id-mismatch",
    });
    expect(fresh).toMatchObject({ source: "file-json", decision: "complete", checkIdMatch: true });
    expect(fresh?.checkId).toBe(backend.calls[1]?.env.CLOSER_CHECK_ID);
    // docs/completion.md#decision-file: by default in the run folder, where git never looks.
    expect(backend.calls[1]?.env.CLOSER_DECISION_FILE).toBe(
      path.join(result.runDir, "decision.json"),
    );
    expect(stale?.checkId).not.toBe(fresh?.checkId);
    expect(log.of("validator-end")).toHaveLength(1);
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("a legacy decision file left from before the check started does not count", async () => {
    const setup = await makeTaskRepo({
      files: { ...FIXED_PROJECT, ".closer/decision.json": "PASS\n" },
      conditions: ["git-clean"],
      textOnly: true,
      runner: { decisionFile: DECISION_FILE },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { text: "working on it" },
      { files: { [DECISION_FILE]: "FAIL\nPASS\n" }, text: "done" },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(log.of("decision")[0]).toMatchObject({
      source: "file-legacy",
      reason: "file-older-than-check",
    });
    expect(log.of("decision")[1]).toMatchObject({ source: "file-legacy", decision: "complete" });
    expect(result.status).toBe("completed");
  });

  it("docs/completion.md#check-id each check has a fresh check id, given as the template variable checkId and as CLOSER_CHECK_ID to the agent; nothing tells the validators (docs/integrity.md#toolchain)", async () => {
    const setup = await makeTaskRepo({
      validators: {
        "check-id-seen": {
          type: "command",
          command: 'printf %s "[$CLOSER_CHECK_ID]"',
          successWhen: "not-empty",
          failurePattern: "slow-check",
          cache: false,
        },
      },
      conditions: ["check-id-seen", "tests-pass"],
      prompts: {
        "steps/initial/task/f_default.md": "Start. Check id: {{checkId}}\n",
        "steps/continuation/task/f_default.md": "Go on. Check id: {{checkId}}\n",
        "steps/retry/task/f_failed_test-failed.md": "Tests fail. Check id: {{checkId}}\n",
      },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: WORKING },
      { structuredOutput: DONE },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", iterations: 3 });
    const ids = backend.calls.map((call) => call.env.CLOSER_CHECK_ID ?? "");
    expect(new Set(ids).size).toBe(3);
    backend.calls.forEach((call, index) => {
      expect(call.prompt).toContain(`Check id: ${ids[index]}`);
    });
    expect(log.of("prompt").map((event) => event.kind)).toEqual(["step", "step", "retry"]);
    const seen = log.of("validator-end").filter((event) => event.validator === "check-id-seen");
    expect(seen.map((event) => event.stdout)).toEqual(["[]", "[]"]);
    expect(log.of("decision").map((event) => event.checkId)).toEqual(ids);
  });

  it("docs/completion.md#decision-file a decision path outside the working tree is a configuration error before any model call", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([{ structuredOutput: DONE }]);
    const outside = {
      ...setup.agent,
      runner: { ...setup.agent.runner, decisionFile: "../decision.json" },
    };
    const error = await runTask(setup, backend, { agent: outside }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(CloserError);
    expect((error as CloserError).code).toBe("config_error");
    expect((error as CloserError).fields.jsonPath).toBe("runner.decisionFile");
    expect(backend.calls).toEqual([]);
  });

  it("docs/completion.md#completion-signal the registry's completionSignal decides which status or action declares completion", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      conditions: ["git-clean"],
      registry: { completionSignal: { status: ["shipped"], action: ["ship"] } },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      { structuredOutput: { status: "in_progress", next_action: { action: "ship" } } },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(log.of("decision").map((event) => event.decision)).toEqual(["incomplete", "complete"]);
    expect(log.of("validator-end").map((event) => event.iteration)).toEqual([2]);
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("docs/retry.md#counters format errors and undecidable declarations have their own limits: they spend no onFailure attempt", async () => {
    const setup = await makeTaskRepo({
      conditions: ["tests-pass"],
      completionStep: {
        onFailure: { action: "retry", maxAttempts: 2 },
        responseFormat: { type: "json", requiredFields: ["status"] },
      },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { text: "I am not sure yet." },
      { text: "COMPLETE" },
      { structuredOutput: DONE },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(log.of("retry-select").map((event) => [event.pattern, event.attempt])).toEqual([
      ["undecidable", 1],
      ["format-error", 1],
      ["test-failed", 1],
    ]);
    expect(result).toMatchObject({ status: "completed", iterations: 4 });
  });
});
