import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runAgent } from "../../src/loop/index.js";
import { readRunState } from "../../src/record/run-record.js";
import { resolveRunSettings } from "../../src/run/index.js";
import { makeScriptedBackend, makeTestClock } from "../../src/testing/index.js";
import {
  COMMIT_ALL,
  DONE,
  FIXED_PROJECT,
  makeEventLog,
  makeTaskRepo,
  runTask,
  TASK,
  WORKING,
} from "./support/task-agent.js";

/** The model's turn: it commits a file, then declares the work done. */
const WORK_AND_DONE = {
  files: { "notes.txt": "the work\n" },
  commands: [COMMIT_ALL],
  structuredOutput: DONE,
};

/**
 * A check that passes, and the first time it runs on the model's work (notes.txt) commits a file
 * of its own. The bare loop has no clean room: its checks run in the tree (docs/integrity.md#clean-room).
 */
function commitsOnce(mark: string) {
  return {
    type: "command",
    command: `[ ! -e notes.txt ] || [ -e "${mark}" ] || { touch "${mark}" && echo late > late.txt && git add late.txt && git commit --quiet -m late; }`,
    successWhen: "exitCode:0",
    failurePattern: "test-failed",
  };
}

describe("docs/integrity.md#one-commit: the verdict is about the commit the checks started on", () => {
  let outside = "";
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
    if (outside !== "") await rm(outside, { recursive: true, force: true });
  });

  it("run.json's checking and the checks-start event name the commit (after beforeChecks) and the tree", async () => {
    const setup = await makeTaskRepo({ files: FIXED_PROJECT, conditions: ["git-clean"] });
    cleanup = setup.repo.cleanup;
    const log = makeEventLog();
    const controller = new AbortController();
    const settings = await resolveRunSettings({
      agent: setup.agent,
      backend: makeScriptedBackend([
        { files: { "notes.txt": "left over\n" }, structuredOutput: DONE },
      ]),
      cwd: setup.repo.dir,
      task: TASK,
      clock: makeTestClock(),
      onEvent: log.listener,
      signal: controller.signal,
      // Stops the run once its checks started, so run.json keeps what they were checking.
      plugins: [{ name: "stop", hooks: { beforeChecks: () => controller.abort() } }],
    });
    const result = await runAgent({
      ...settings,
      beforeChecks: async () => {
        await setup.repo.git("add", "--all");
        await setup.repo.git("commit", "--quiet", "-m", "leftovers");
      },
    });

    expect(result.status).toBe("aborted");
    const commit = (await setup.repo.git("rev-parse", "HEAD")).stdout.trim();
    const checking = (await readRunState(result.runDir)).checking;
    expect(checking).toMatchObject({ iteration: 1, commit });
    expect(checking?.tree).toMatch(/^[0-9a-f]{64}$/);
    expect(log.of("checks-start")).toEqual([
      expect.objectContaining({ iteration: 1, commit, tree: checking?.tree }),
    ]);
  });

  it("a check that commits after its own check passed voids the verdict: tree-changed, then the next declaration completes on the commit its checks saw", async () => {
    outside = await mkdtemp(join(tmpdir(), "closer-one-commit-"));
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      validators: { "commits-late": commitsOnce(join(outside, "committed")) },
      conditions: ["git-clean", "commits-late"],
      completionStep: { concurrency: 1 },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([WORK_AND_DONE, { structuredOutput: DONE }]);

    const { result, log } = await runTask(setup, backend);

    expect(result).toMatchObject({ status: "completed", iterations: 2, refutedDeclarations: 1 });
    const [first, second] = log.of("checks-start").map((event) => event.commit);
    expect(log.of("declaration-refuted").map((event) => event.pattern)).toEqual(["tree-changed"]);
    const [guard] = log.of("guard").filter((event) => event.guard === "tree-changed");
    expect(guard).toMatchObject({ iteration: 1, valid: false });
    expect(guard?.params).toMatchObject({ checkedCommit: first, commitNow: second });
    expect(backend.calls[1]?.prompt).toContain("Your work changed while closer was checking it");
    const head = (await setup.repo.git("rev-parse", "HEAD")).stdout.trim();
    expect(second).not.toBe(first);
    expect(result.completion?.commit).toBe(second);
    expect(head).toBe(second);
  });

  it("onFailure skip never accepts a declaration whose tree moved while it was checked", async () => {
    outside = await mkdtemp(join(tmpdir(), "closer-one-commit-"));
    const mark = join(outside, "wrote");
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      validators: {
        // Always fails; the first time after the baseline it also leaves a file in the tree.
        noisy: {
          type: "command",
          command: `[ ! -e notes.txt ] || [ -e "${mark}" ] || { touch "${mark}" && echo x > stray.txt; }; exit 1`,
          successWhen: "exitCode:0",
          failurePattern: "test-failed",
        },
      },
      conditions: ["noisy"],
      completionStep: { onFailure: { action: "skip", maxAttempts: 3 } },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([WORK_AND_DONE, { structuredOutput: DONE }]);

    const { result, log } = await runTask(setup, backend);

    expect(log.of("declaration-refuted").map((event) => event.pattern)).toEqual([
      "tree-changed",
      "test-failed",
    ]);
    expect(result).toMatchObject({ status: "completed", iterations: 2 });
    expect(result.completion?.commit).toBe(log.of("checks-start")[1]?.commit);
  });

  it("a refutation that leads to a retry stands: the check's own finding reaches the model", async () => {
    outside = await mkdtemp(join(tmpdir(), "closer-one-commit-"));
    const setup = await makeTaskRepo({
      validators: { "commits-late": commitsOnce(join(outside, "committed")) },
      conditions: ["tests-pass", "commits-late"],
      completionStep: { concurrency: 1 },
    });
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([WORK_AND_DONE, { structuredOutput: WORKING }]);

    const { log } = await runTask(setup, backend, { maxIterations: 2 });

    // The check did commit while the checks ran.
    expect((await setup.repo.git("log", "-1", "--format=%s")).stdout.trim()).toBe("late");
    expect(log.of("declaration-refuted").map((event) => event.pattern)).toEqual(["test-failed"]);
    expect(log.of("guard").filter((event) => event.guard === "tree-changed")).toEqual([]);
  });
});
