import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { DONE, FIXED_PROJECT, makeTaskRepo, runTask } from "./support/task-agent.js";

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
    expect(log.of("validator-start")).toHaveLength(1);
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
    expect(log.of("validator-start").map((event) => event.iteration)).toEqual([2]);
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
      {
        files: {
          [DECISION_FILE]: JSON.stringify({
            decision: "complete",
            check_id: "check-from-yesterday",
          }),
        },
        text: "COMPLETE",
      },
      (request) => ({
        files: {
          [DECISION_FILE]: JSON.stringify({
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
    expect(backend.calls[1]?.env.CLOSER_DECISION_FILE).toBe(
      path.join(setup.repo.dir, DECISION_FILE),
    );
    expect(stale?.checkId).not.toBe(fresh?.checkId);
    expect(log.of("validator-start")).toHaveLength(1);
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("a legacy decision file left from before the check started does not count", async () => {
    const setup = await makeTaskRepo({
      files: { ...FIXED_PROJECT, ".closer/decision.json": "PASS\n" },
      conditions: ["git-clean"],
      textOnly: true,
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
});
