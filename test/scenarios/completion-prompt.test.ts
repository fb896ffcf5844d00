/**
 * docs/completion.md#completion-prompt: a completion step's own prompt (seed 002's
 * `prompt: {c1, c2, c3}`), its editions, and the schema its `outputSchemaRef` gives the
 * declaration checked at that step.
 */
import { afterEach, describe, expect, it } from "vitest";
import { lintAgentFolder } from "../../src/lint/lint-agent-folder.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import {
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  makeTaskRepo,
  runTask,
  type TaskAgentOptions,
} from "./support/task-agent.js";

/** The closure answer of seed 002: a status, a summary and the checks the model ran. */
const CLOSURE_SCHEMA = {
  "closure.task": {
    type: "object",
    required: ["status", "summary", "checked"],
    properties: {
      status: { type: "string", enum: ["completed", "in_progress"] },
      summary: { type: "string" },
      checked: { type: "array", items: { type: "string" } },
    },
  },
};

const CLOSURE_PROMPT = "Closing {{task.title}}: list what you checked, then answer.\n";
const CLOSED = { status: "completed", summary: "add adds", checked: ["node --test"] };

/** The task agent whose completion step has seed 002's prompt and schema. */
function seedAgent(prompt: Record<string, string>, extra: TaskAgentOptions = {}) {
  return makeTaskRepo({
    ...extra,
    completionStep: {
      c2: undefined,
      c3: undefined,
      prompt,
      outputSchemaRef: { file: "closure.schema.json", schema: "closure.task" },
      ...extra.completionStep,
    },
    prompts: {
      "steps/closure/task/f_default.md": CLOSURE_PROMPT,
      "steps/retry/task/f_failed_test-failed.md":
        "Tests fail: {{#each failedTests}}{{this.name}} {{/each}}\n",
      ...extra.prompts,
    },
    schemas: { "closure.schema.json": CLOSURE_SCHEMA },
  });
}

describe("docs/completion.md#completion-prompt the completion step's own prompt", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("a declaration is followed by the completion prompt, in the model's session and the completion step's schema; its answer is checked", async () => {
    const setup = await seedAgent({ c1: "steps", c2: "closure", c3: "task" });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE, sessionId: "worker" },
      { structuredOutput: CLOSED },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
      { structuredOutput: CLOSED },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", iterations: 2 });
    const [, closing, retry] = backend.calls;
    expect(closing?.prompt).toBe("Closing make add() add: list what you checked, then answer.\n");
    expect(closing?.sessionId).toBe("worker");
    expect(closing?.schema?.required).toEqual(["status", "summary", "checked"]);
    // Its retries are in retry/<prompt.c3>.
    expect(retry?.prompt).toContain("Tests fail: adds two numbers");
    expect(log.of("prompt").map((event) => event.kind)).toEqual([
      "step",
      "completion",
      "retry",
      "completion",
    ]);
    expect(Object.keys(result.costByReason ?? {})).toContain("completion");
    // The completion answers were checked: iteration 1's on the untouched tree (the baseline's verdicts).
    expect(log.of("validator-end").map((event) => [event.iteration, event.valid])).toEqual([
      [1, true],
      [1, false],
      [2, true],
      [2, true],
    ]);
  });

  it("an answer that takes the declaration back runs no check; the loop goes on", async () => {
    const setup = await seedAgent({ c2: "closure", c3: "task" });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      { structuredOutput: { ...CLOSED, status: "in_progress" } },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
      { structuredOutput: CLOSED },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", iterations: 2 });
    expect(log.of("validator-start").map((event) => event.iteration)).toEqual([2, 2]);
    expect(backend.calls[2]?.prompt).toContain("# Continue: make add() add");
  });

  it("an answer outside the completion step's schema gets a format retry", async () => {
    const setup = await seedAgent({ c2: "closure", c3: "task" });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
      { structuredOutput: { status: "completed", summary: "done" } },
      { structuredOutput: DONE },
      { structuredOutput: CLOSED },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", iterations: 2 });
    expect(log.of("format-check").map((event) => event.valid)).toEqual([false, true]);
    expect(log.of("format-check")[0]?.error).toContain("checked");
  });

  it("an edition's file is used when it exists, f_default.md when it does not", async () => {
    const withEdition = await seedAgent(
      { c2: "closure", c3: "task", edition: "strict" },
      { prompts: { "steps/closure/task/f_strict.md": "Strictly closing.\n" } },
    );
    cleanup = withEdition.repo.cleanup;
    const strict = makeScriptedBackend([
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
      { structuredOutput: CLOSED },
    ]);
    await runTask(withEdition, strict);
    expect(strict.calls[1]?.prompt).toBe("Strictly closing.\n");
    await withEdition.repo.cleanup();

    const fallback = await seedAgent({ c2: "closure", c3: "task", edition: "strict" });
    cleanup = fallback.repo.cleanup;
    const plain = makeScriptedBackend([
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
      { structuredOutput: CLOSED },
    ]);
    const { result } = await runTask(fallback, plain);
    expect(result.status).toBe("completed");
    expect(plain.calls[1]?.prompt).toContain("Closing make add() add");
  });
});

describe("docs/completion.md#completion-prompt a completion step's outputSchemaRef", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("without a prompt, the declaration itself must match it: else a format retry", async () => {
    const setup = await makeTaskRepo({
      completionStep: { outputSchemaRef: { file: "closure.schema.json", schema: "closure.task" } },
      schemas: { "closure.schema.json": CLOSURE_SCHEMA },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
      { structuredOutput: CLOSED },
    ]);
    const { result, log } = await runTask(setup, backend);
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
    expect(log.of("format-check").map((event) => event.valid)).toEqual([false, true]);
    expect(log.of("retry-select")[0]?.pattern).toBe("format-error");
  });

  it("closer validate resolves it and finds the completion prompt, naming what is missing", async () => {
    const setup = await makeTaskRepo({
      completionStep: {
        prompt: { c2: "closure", c3: "task", edition: "strict" },
        outputSchemaRef: { file: "missing.schema.json", schema: "closure.task" },
      },
    });
    cleanup = setup.repo.cleanup;
    const report = await lintAgentFolder("tasker", setup.repo.dir);
    const errors = report.problems.filter((problem) => problem.severity === "error");
    const text = errors.map((problem) => `${problem.jsonPath ?? ""} ${problem.message}`).join("\n");
    expect(text).toContain("missing.schema.json");
    expect(text).toContain('completionSteps["complete.task"].prompt');
    expect(text).toContain("prompts/steps/closure/task/f_default.md");
  });
});
