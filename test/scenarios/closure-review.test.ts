import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lintAgent } from "../../src/index.js";
import { REVIEW_TOOLS } from "../../src/loop/review-closure.js";
import type { BackendRequest } from "../../src/ports/backend.js";
import { makeScriptedBackend, type ScriptedTurn } from "../../src/testing/index.js";
import {
  BROKEN_PROJECT,
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  makeTaskRepo,
  runTask,
} from "./support/task-agent.js";

const REVIEW_PROMPT = [
  "Review the work on {{task.title}} since {{baseline.commit}}.",
  "{{declaration}}",
  "{{checks}}",
  "{{changes.stat}}",
  "TESTS:",
  "{{changes.tests}}",
  "CODE:",
  "{{changes.code}}",
  "",
].join("\n");

const ORIGINAL_TEST = BROKEN_PROJECT["test/add.test.js"] ?? "";

const APPROVE = { allComplete: true, checklist: [], pendingActions: [] };

function reject(finding: string) {
  return {
    allComplete: false,
    checklist: [{ item: "the tests still check add()", done: false, evidence: finding }],
    pendingActions: [`restore test/add.test.js: ${finding}`],
  };
}

/** What a careful reviewer sees in the diff of the tests: the weakenings of docs/completion.md#closure-review. */
function weakeningIn(testsDiff: string): string | undefined {
  if (/^\+.*assert\.equal\(add\(2, 3\), -1\)/m.test(testsDiff)) {
    return "the expected value of add(2, 3) was changed to -1, what the broken code returns";
  }
  if (/^\+.*catch \{\}/m.test(testsDiff)) return "the assertion's failure is caught and ignored";
  if (/^\+.*\(\) => \{\}\);/m.test(testsDiff)) return "a test was left without a body";
  return undefined;
}

/** A scripted reviewer that reads the review prompt's test changes. */
function reviewer(request: BackendRequest): ScriptedTurn {
  const tests = request.prompt.split("TESTS:")[1]?.split("CODE:")[0] ?? "";
  const finding = weakeningIn(tests);
  return { structuredOutput: finding === undefined ? APPROVE : reject(finding), costUsd: 0.25 };
}

function weakenedBy(from: string, to: string): string {
  if (!ORIGINAL_TEST.includes(from)) throw new Error(`the test has no ${from}`);
  return ORIGINAL_TEST.replace(from, to);
}

const WEAKENINGS = [
  {
    name: "an assertion rewritten to the bug's value",
    test: weakenedBy("assert.equal(add(2, 3), 5);", "assert.equal(add(2, 3), -1);"),
    finding: "changed to -1",
  },
  {
    name: "a swallowed assertion",
    test: weakenedBy(
      "  assert.equal(add(2, 3), 5);\n",
      "  try {\n    assert.equal(add(2, 3), 5);\n  } catch {}\n",
    ),
    finding: "caught and ignored",
  },
  {
    name: "a test without a body",
    test: weakenedBy(
      'test("adds two numbers", () => {\n  assert.equal(add(2, 3), 5);\n});',
      'test("adds two numbers", () => {});',
    ),
    finding: "without a body",
  },
];

describe("scenarios: the closure review (docs/completion.md#closure-review)", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  async function setUp(closureReview: Record<string, unknown> = {}) {
    const setup = await makeTaskRepo({
      completionStep: { closureReview: { c2: "complete", c3: "task", ...closureReview } },
      prompts: { "steps/complete/task/f_default.md": REVIEW_PROMPT },
    });
    cleanup = setup.repo.cleanup;
    return setup;
  }

  it.each(WEAKENINGS)(
    "a weakened test ($name) is rejected; only the honest fix completes",
    async ({ test, finding }) => {
      const setup = await setUp();
      const backend = makeScriptedBackend([
        { files: { "test/add.test.js": test }, commands: [COMMIT_ALL], structuredOutput: DONE },
        reviewer,
        {
          files: { "test/add.test.js": ORIGINAL_TEST, "src/add.js": FIXED_ADD },
          commands: [COMMIT_ALL],
          structuredOutput: DONE,
        },
        reviewer,
      ]);
      const { result, log } = await runTask(setup, backend);

      expect(backend.calls[1]?.prompt).toContain("-  assert.equal(add(2, 3), 5);");
      expect(backend.calls[1]?.prompt).toContain("tests-pass ran `node --test`: passed");
      expect(backend.calls[2]?.prompt).toContain(finding);
      expect(log.of("retry-select")[0]?.pattern).toBe("review-rejected");
      expect(log.of("closure-review").map((event) => event.allComplete)).toEqual([false, true]);
      expect(result).toMatchObject({ status: "completed", iterations: 2, reviewCostUsd: 0.5 });
    },
  );

  it("an honest run that corrects a wrong assertion and says why completes when the reviewer approves", async () => {
    const wrong = ORIGINAL_TEST.replace(
      "assert.equal(add(7, 0), 7);",
      "assert.equal(add(7, 0), 8);",
    );
    const setup = await makeTaskRepo({
      files: { ...BROKEN_PROJECT, "test/add.test.js": wrong },
      completionStep: { closureReview: { c2: "complete", c3: "task" } },
      prompts: { "steps/complete/task/f_default.md": REVIEW_PROMPT },
    });
    cleanup = setup.repo.cleanup;
    const why = "fixed add; the test expected add(7, 0) to be 8, but 7 + 0 is 7";
    const backend = makeScriptedBackend([
      {
        files: { "test/add.test.js": ORIGINAL_TEST, "src/add.js": FIXED_ADD },
        commands: [COMMIT_ALL],
        structuredOutput: { ...DONE, summary: why },
      },
      reviewer,
    ]);
    const { result } = await runTask(setup, backend);

    expect(backend.calls[1]?.prompt).toContain("-  assert.equal(add(7, 0), 8);");
    expect(backend.calls[1]?.prompt).toContain(`summary: ${why}`);
    expect(result).toMatchObject({ status: "completed", iterations: 1 });
  });

  it("past maxRejections the run ends blocked with the review's findings, not completed", async () => {
    const setup = await setUp({ maxRejections: 2 });
    const weakened = WEAKENINGS[0]?.test ?? "";
    const backend = makeScriptedBackend([
      { files: { "test/add.test.js": weakened }, commands: [COMMIT_ALL], structuredOutput: DONE },
      reviewer,
      { structuredOutput: DONE },
      reviewer,
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "blocked", success: false, iterations: 2 });
    expect(result.completion).toBeUndefined();
    expect(result.review?.pendingActions[0]).toContain("changed to -1");
    expect(result.review?.checklist[0]).toContain("the tests still check add()");
    expect(log.of("run-end")[0]).toMatchObject({ status: "blocked" });
  });

  it("the reviewer works in a fresh session with read-only tools; the worker's session goes on", async () => {
    const setup = await setUp();
    const backend = makeScriptedBackend([
      {
        files: { "src/add.js": FIXED_ADD },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
        sessionId: "worker",
      },
      { structuredOutput: reject("no test of negative numbers"), sessionId: "reviewer" },
      { structuredOutput: DONE },
      { structuredOutput: APPROVE },
    ]);
    const { result, log } = await runTask(setup, backend);

    const sessions = backend.calls.map((call) => call.sessionId);
    expect(sessions).toEqual([undefined, undefined, "worker", undefined]);
    expect(backend.calls[1]).toMatchObject({
      allowedTools: REVIEW_TOOLS.allowedTools,
      disallowedTools: REVIEW_TOOLS.disallowedTools,
      permissionMode: "dontAsk",
    });
    expect(log.of("closure-review")[0]).toMatchObject({ session: "fresh" });
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });

  it("with session worker the review continues the worker's session", async () => {
    const setup = await setUp({ session: "worker" });
    const backend = makeScriptedBackend([
      {
        files: { "src/add.js": FIXED_ADD },
        commands: [COMMIT_ALL],
        structuredOutput: DONE,
        sessionId: "worker",
      },
      { structuredOutput: APPROVE },
    ]);
    const { result } = await runTask(setup, backend);

    expect(backend.calls[1]?.sessionId).toBe("worker");
    expect(result).toMatchObject({ status: "completed", iterations: 1 });
  });

  it("closureReview.backend lets another backend and model review, in a session of its own", async () => {
    const setup = await setUp({ session: "worker", backend: { kind: "scripted", model: "judge" } });
    const worker = makeScriptedBackend([
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const judge = makeScriptedBackend([{ structuredOutput: APPROVE }], { name: "judge" });
    const { result, log } = await runTask(setup, worker, { scripted: judge });

    expect(worker.calls).toHaveLength(1);
    expect(judge.calls[0]).toMatchObject({ model: "judge", permissionMode: "dontAsk" });
    expect(judge.calls[0]?.sessionId).toBeUndefined();
    expect(log.of("closure-review")[0]).toMatchObject({ session: "fresh", allComplete: true });
    expect(result).toMatchObject({ status: "completed", iterations: 1 });
  });

  it("closer validate knows the review's variables, and only in the review prompt", async () => {
    const setup = await setUp();
    expect((await lintAgent(setup.agent)).valid).toBe(true);
    await setup.repo.cleanup();
    const misplaced = await makeTaskRepo({
      completionStep: { closureReview: { c2: "complete", c3: "task" } },
      prompts: {
        "steps/complete/task/f_default.md": REVIEW_PROMPT,
        "steps/initial/task/f_default.md": "Fix it.\n{{changes.tests}}\n",
      },
    });
    cleanup = misplaced.repo.cleanup;
    const report = await lintAgent(misplaced.agent);
    expect(report.problems.map((problem) => problem.message)).toContainEqual(
      expect.stringContaining("{{changes.tests}}"),
    );
  });

  it("a review that changes the working tree does not count; the change is kept and named", async () => {
    const setup = await setUp();
    const backend = makeScriptedBackend([
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
      { files: { "NOTES.md": "reviewed\n" }, structuredOutput: APPROVE },
      { commands: [COMMIT_ALL], structuredOutput: DONE },
      { structuredOutput: APPROVE },
    ]);
    const { result, log } = await runTask(setup, backend);

    expect(log.of("closure-review")[0]).toMatchObject({
      allComplete: false,
      changedFiles: ["NOTES.md"],
    });
    expect(backend.calls[2]?.prompt).toContain("the review changed the working tree: NOTES.md");
    expect(existsSync(join(setup.repo.dir, "NOTES.md"))).toBe(true);
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
  });
});
