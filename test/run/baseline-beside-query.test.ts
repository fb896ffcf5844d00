import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Backend } from "../../src/ports/backend.js";
import { readRunState } from "../../src/record/run-record.js";
import { resumeRun, runTask } from "../../src/run/index.js";
import { makeScriptedBackend, makeTestClock } from "../../src/testing/index.js";
import { DONE, eventLog, git, type IssueRepo, makeIssueRepo } from "./support/issue-repo.js";

const TASK = { kind: "text", title: "Speed up the widgets", body: "Make them faster." } as const;
const TEST_FILES = {
  "tests/a.test": "a\n",
  "tests/b.test": "b\n",
  "tests/c.test": "c\n",
};

/**
 * A test suite that holds its run until the model was queried (the mark, which only the
 * model's turn writes; at most 20 s), then names one passing test per file of `tests/` (TAP).
 */
function suiteAfter(mark: string, then = "") {
  return {
    type: "command",
    command: `i=0; while [ ! -e "${mark}" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done; ${then}echo "TAP version 13"; n=0; for f in tests/*.test; do n=$((n + 1)); echo "ok $n - $f"; done; echo "1..$n"`,
    successWhen: "exitCode:0",
    failurePattern: "test-failed",
    extractParams: { failedTests: "parseTestOutput", errorOutput: "stderr" },
  };
}

describe("docs/integrity.md#baseline-beside-query: the baseline's checks run beside the first query", () => {
  let setup: IssueRepo | undefined;
  let marks: string | undefined;
  afterEach(async () => {
    await setup?.cleanup();
    if (marks !== undefined) await rm(marks, { recursive: true, force: true });
    setup = undefined;
    marks = undefined;
  });

  /** A repository with three tests, checked by a suite that waits for `mark` to be written. */
  async function project(validator: (mark: string) => Record<string, unknown>) {
    marks = await realpath(await mkdtemp(join(tmpdir(), "marks-")));
    const mark = join(marks, "queried");
    setup = await makeIssueRepo({
      validators: { suite: validator(mark) },
      conditions: ["suite"],
      patterns: {
        "test-failed": { description: "tests fail", params: ["failedTests", "errorOutput"] },
      },
    });
    await mkdir(join(setup.repo.dir, "tests"));
    for (const [file, text] of Object.entries(TEST_FILES)) {
      await writeFile(join(setup.repo.dir, file), text);
    }
    await git(setup.repo.dir, "add", "--all");
    await git(setup.repo.dir, "commit", "--quiet", "-m", "three tests");
    return { setup, mark };
  }

  /** The task run on `current` with `backend`, its events heard by `log`. */
  function runOn(current: IssueRepo, backend: Backend, log: ReturnType<typeof eventLog>) {
    return runTask({
      agent: current.agent,
      cwd: current.repo.dir,
      task: TASK,
      clock: makeTestClock(),
      backend,
      onEvent: log.onEvent,
    });
  }

  it("the first query is sent while the checks run; a test the model deletes meanwhile is not missing from what they measured, and the first declaration's tests-removed compares with it", async () => {
    const { setup: current, mark } = await project(suiteAfter);
    const log = eventLog();
    let baselinesAtFirstQuery: number | undefined;
    const backend = makeScriptedBackend([
      async (request) => {
        baselinesAtFirstQuery = log.of("baseline").length;
        // The model deletes a test while the baseline's checks are under way, then lets them end.
        await rm(join(request.cwd, "tests/b.test"));
        await writeFile(mark, "queried\n");
        return {
          commands: ['git add --all && git commit --quiet -m "drop a slow test"'],
          structuredOutput: DONE,
        };
      },
      {
        commands: [
          'git checkout HEAD~1 -- tests/b.test && git commit --quiet -m "bring the test back"',
        ],
        structuredOutput: DONE,
      },
    ]);

    const outcome = await runOn(current, backend, log);

    expect(baselinesAtFirstQuery).toBe(0);
    const [baseline] = log.of("baseline");
    expect(baseline?.checks).toEqual([expect.objectContaining({ validator: "suite", tests: 3 })]);
    const removed = log.of("guard").filter((event) => event.guard === "tests-removed");
    expect(removed[0]).toMatchObject({ iteration: 1, valid: false });
    expect(JSON.stringify(removed[0]?.params)).toContain("tests/b.test");
    expect(log.of("declaration-refuted").map((event) => event.pattern)).toEqual(["tests-removed"]);
    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 2 });
    const state = await readRunState(outcome.runDir);
    expect(state.baseline?.checksPending).toBeUndefined();
    expect(Object.keys(state.baseline?.inventories ?? {})).toEqual(["suite"]);
  }, 60_000);

  it("a check that cannot run, found while the first query runs, stops that query and ends the run as it would have before it", async () => {
    const { setup: current, mark } = await project((at) =>
      suiteAfter(at, "closer-no-such-runner --run || exit $?; "),
    );
    const log = eventLog();
    const backend = makeScriptedBackend([
      async () => {
        await writeFile(mark, "queried\n");
        // The model keeps working until it is stopped.
        return { delayMs: 120_000, structuredOutput: DONE };
      },
    ]);

    const outcome = await runOn(current, backend, log);

    expect(outcome).toMatchObject({ success: false, status: "error", errorCode: "config_error" });
    expect(outcome.reason).toContain('the check "suite" cannot run on the untouched tree');
    expect(outcome.reason).toContain("closer-no-such-runner");
    expect(log.of("backend-end")).toEqual([
      expect.objectContaining({
        iteration: 1,
        error: expect.objectContaining({ kind: "aborted" }),
      }),
    ]);
    expect(log.of("abort")).toEqual([]);
    expect(log.of("baseline")[0]?.checks).toEqual([
      expect.objectContaining({ validator: "suite", valid: false }),
    ]);
    expect(log.of("run-end")).toEqual([
      expect.objectContaining({ status: "error", reason: outcome.reason }),
    ]);
    const state = await readRunState(outcome.runDir);
    expect(state).toMatchObject({ status: "error", reason: outcome.reason });
    // Not measured: a resumed run takes the checks again, on the work as the run found it.
    expect(state.baseline?.checksPending).toBe(true);
    expect(state.baseline?.checks).toEqual([]);
  }, 60_000);

  it("a first query that ends the run (the model declares itself blocked) does not wait for the baseline's checks: they are stopped, nothing of them is kept, and run.json keeps them pending", async () => {
    const { setup: current, mark } = await project((at) =>
      suiteAfter(at, `touch "${join(dirname(at), "suite-ended")}"; `),
    );
    const log = eventLog();
    const backend = makeScriptedBackend([
      {
        structuredOutput: {
          status: "blocked",
          summary: "the task needs a decision",
          next_action: { action: "blocked", reason: "which widgets to speed up is for a person" },
        },
      },
    ]);

    const outcome = await runOn(current, backend, log);

    expect(outcome).toMatchObject({ success: false, status: "blocked" });
    // The suite waits for a mark no one writes: had the run waited, it would have ended and said so.
    expect(existsSync(join(dirname(mark), "suite-ended"))).toBe(false);
    expect(log.of("baseline")).toEqual([]);
    const state = await readRunState(outcome.runDir);
    expect(state).toMatchObject({ status: "blocked" });
    expect(state.baseline).toMatchObject({ checksPending: true, checks: [] });
  }, 60_000);

  it("a first query whose backend fails ends the run at once, not after the baseline's checks", async () => {
    const { setup: current, mark } = await project((at) =>
      suiteAfter(at, `touch "${join(dirname(at), "suite-ended")}"; `),
    );
    const log = eventLog();
    const backend = makeScriptedBackend([
      { error: { kind: "auth", message: "invalid x-api-key", retryable: false } },
    ]);

    const outcome = await runOn(current, backend, log);

    expect(outcome).toMatchObject({ success: false, status: "error" });
    expect(existsSync(join(dirname(mark), "suite-ended"))).toBe(false);
    expect(log.of("baseline")).toEqual([]);
  }, 60_000);

  it("a run stopped while its baseline's checks run keeps what the first query needed; the resumed run measures the work as the run found it, not as the model left it", async () => {
    const { setup: current, mark } = await project(suiteAfter);
    const stop = new AbortController();
    const first = await runTask({
      agent: current.agent,
      cwd: current.repo.dir,
      task: TASK,
      clock: makeTestClock(),
      signal: stop.signal,
      backend: makeScriptedBackend([
        async (request) => {
          await rm(join(request.cwd, "tests/c.test"));
          stop.abort(); // Ctrl-C, while the suite still waits
          return { delayMs: 120_000, structuredOutput: DONE };
        },
      ]),
    });
    expect(first).toMatchObject({ status: "aborted" });
    const stopped = await readRunState(first.runDir);
    expect(stopped.baseline).toMatchObject({ checksPending: true, checks: [] });
    expect(stopped.baseline?.tree).toMatch(/^[0-9a-f]{40}$/);

    const log = eventLog();
    const resumed = await resumeRun({
      agent: current.agent,
      cwd: current.repo.dir,
      resume: first.runId,
      clock: makeTestClock(),
      onEvent: log.onEvent,
      backend: makeScriptedBackend([
        async () => {
          await writeFile(mark, "queried\n");
          return { structuredOutput: DONE };
        },
        { commands: ["git checkout HEAD -- tests/c.test"], structuredOutput: DONE },
      ]),
    });

    expect(log.of("baseline")[0]?.checks).toEqual([
      expect.objectContaining({ validator: "suite", tests: 3 }),
    ]);
    expect(log.of("declaration-refuted").map((event) => event.pattern)).toEqual(["tests-removed"]);
    expect(resumed).toMatchObject({ success: true, status: "completed" });
    expect((await readRunState(resumed.runDir)).baseline?.checksPending).toBeUndefined();
  }, 60_000);
});
