import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeProgressReporter } from "../../src/cli/progress.js";
import type { BackendRequest } from "../../src/ports/backend.js";
import type { RunEvent } from "../../src/ports/events.js";
import { describeDifference } from "../../src/redecide/compare-trails.js";
import { redecideRun } from "../../src/redecide/redecide-run.js";
import { makeScriptedBackend, type ScriptedStep } from "../../src/testing/index.js";
import { COMMIT_ALL, DONE, FIXED_PROJECT, makeTaskRepo, runTask } from "./support/task-agent.js";

/** A folder outside the working tree, where the checks leave what the test counts. */
let outside: string;
beforeEach(async () => {
  outside = await mkdtemp(join(tmpdir(), "closer-validation-phase-"));
});
afterEach(async () => {
  await rm(outside, { recursive: true, force: true });
});

async function linesOf(file: string): Promise<string[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line !== "");
}

/** What the progress display prints for these events. */
function progressOf(events: readonly RunEvent[]): string[] {
  const chunks: string[] = [];
  const reporter = makeProgressReporter({
    write: (text) => chunks.push(text),
    live: false,
    color: false,
    verbose: false,
    now: () => 0,
  });
  for (const event of events) reporter(event);
  return chunks.join("").split("\n");
}

describe("docs/completion.md#concurrency the validators of a declaration run at once", () => {
  /**
   * A check that logs its start and end, and its phase (the baseline, or the model's work, which
   * writes notes.txt); before ending it waits (at most 0.75 s) until all three checks of the
   * declaration started, so overlapping checks all start before any ends.
   */
  const loggingCheck = (name: string, log: string) => ({
    type: "command",
    command: [
      `phase=$([ -e notes.txt ] && echo work || echo baseline)`,
      `echo "start ${name} $phase" >> "${log}"`,
      `i=0; while [ "$phase" != baseline ] && [ "$(grep -c "^start .* $phase$" "${log}")" -lt 3 ] && [ $i -lt 15 ]; do sleep 0.05; i=$((i + 1)); done`,
      `echo "end ${name} $phase" >> "${log}"`,
    ].join("\n"),
    failurePattern: "slow-check",
    cache: false,
  });

  async function runWithConcurrency(concurrency: number | undefined) {
    const log = join(outside, "checks.log");
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      validators: {
        a: loggingCheck("a", log),
        b: loggingCheck("b", log),
        c: loggingCheck("c", log),
      },
      conditions: ["a", "b", "c"],
      ...(concurrency === undefined ? {} : { completionStep: { concurrency } }),
    });
    try {
      const backend = makeScriptedBackend([
        { files: { "notes.txt": "the work\n" }, structuredOutput: DONE },
      ]);
      const run = await runTask(setup, backend);
      const iteration = (await linesOf(log)).filter((line) => !line.endsWith(" baseline"));
      return { ...run, checks: iteration.map((line) => line.split(" ").slice(0, 2).join(" ")) };
    } finally {
      await setup.repo.cleanup();
    }
  }

  it("by default they overlap: all three start before any ends; the events are in condition order", async () => {
    const { checks, log, result } = await runWithConcurrency(undefined);

    expect(checks.slice(0, 3).sort()).toEqual(["start a", "start b", "start c"]);
    expect(checks.slice(3).sort()).toEqual(["end a", "end b", "end c"]);
    expect(log.of("validator-start").map((event) => event.validator)).toEqual(["a", "b", "c"]);
    expect(log.of("validator-end").map((event) => event.validator)).toEqual(["a", "b", "c"]);
    expect(result.status).toBe("completed");
  });

  it("with concurrency 1 they run one after another, in condition order", async () => {
    const { checks, log } = await runWithConcurrency(1);

    expect(checks).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    const events = log.events
      .filter((event) => event.type === "validator-start" || event.type === "validator-end")
      .map((event) => `${event.type} ${"validator" in event ? event.validator : ""}`);
    expect(events).toEqual([
      "validator-start a",
      "validator-end a",
      "validator-start b",
      "validator-end b",
      "validator-start c",
      "validator-end c",
    ]);
  });

  it("the first failing condition in order decides, though a later one failed first", async () => {
    const done = join(outside, "fast-failed");
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      validators: {
        // Fails only once the later check has failed, so it always fails last.
        slow: {
          type: "command",
          command: `[ -e notes.txt ] || exit 1; i=0; while [ ! -f "${done}" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done; exit 1`,
          failurePattern: "slow-failure",
        },
        fine: { type: "command", command: "true", failurePattern: "slow-check" },
        fast: {
          type: "command",
          command: `[ ! -e notes.txt ] || touch "${done}"; exit 1`,
          failurePattern: "fast-failure",
        },
      },
      patterns: {
        "slow-failure": { description: "the earlier condition", params: [] },
        "fast-failure": { description: "the later condition", params: [] },
      },
      conditions: ["slow", "fine", "fast"],
      runner: { maxIterations: 1 },
    });
    try {
      const backend = makeScriptedBackend([
        { files: { "notes.txt": "a change\n" }, commands: [COMMIT_ALL], structuredOutput: DONE },
      ]);
      const { log } = await runTask(setup, backend);

      const ends = log.of("validator-end").filter((event) => event.iteration === 1);
      expect(ends.map((event) => [event.validator, event.valid])).toEqual([
        ["slow", false],
        ["fine", true],
        ["fast", false],
      ]);
      expect(log.of("declaration-refuted")[0]?.failed).toBe("slow");
      expect(log.of("retry-select").map((event) => event.pattern)).toEqual(["slow-failure"]);
    } finally {
      await setup.repo.cleanup();
    }
  });
});

describe("docs/completion.md#cached-verdicts an unchanged tree keeps its verdict", () => {
  /** A check that counts its runs outside the tree and passes once DONE is committed. */
  const countingCheck = (counter: string, cache: boolean) => ({
    type: "command",
    command: `echo run >> "${counter}"; git cat-file -e HEAD:DONE`,
    failurePattern: "slow-check",
    cache,
  });

  /** The model's turns: declarations with and without a change between them. */
  const TURNS: readonly ScriptedStep[] = [
    { structuredOutput: DONE }, // 1: the tree the baseline checked
    { structuredOutput: DONE }, // 2: unchanged again
    { files: { ".closer/scratch": "ignored\n" }, structuredOutput: DONE }, // 3: an ignored file
    { files: { "README.md": "# changed\n" }, structuredOutput: DONE }, // 4: a tracked file
    { files: { "notes.txt": "one\n" }, structuredOutput: DONE }, // 5: an untracked file
    { files: { "notes.txt": "two\n" }, structuredOutput: DONE }, // 6: its content
    { commands: ["git add notes.txt"], structuredOutput: DONE }, // 7: the index
    { commands: [COMMIT_ALL], structuredOutput: DONE }, // 8: HEAD
    { structuredOutput: DONE }, // 9: unchanged
    { files: { DONE: "yes\n" }, commands: [COMMIT_ALL], structuredOutput: DONE }, // 10: passes
  ];

  async function runCounted(cache: boolean) {
    const counter = join(outside, "runs");
    const setup = await makeTaskRepo({
      files: { ...FIXED_PROJECT, "README.md": "# fixture\n" },
      validators: { counted: countingCheck(counter, cache) },
      conditions: ["counted"],
      completionStep: { onFailure: { action: "retry", maxAttempts: 20 } },
      runner: { maxIterations: TURNS.length },
    });
    try {
      const run = await runTask(setup, makeScriptedBackend(TURNS));
      const replay = await redecideRun({
        runDir: run.result.runDir,
        definitionDir: setup.agent.dir,
      });
      return { ...run, runs: (await linesOf(counter)).length, replay };
    } finally {
      await setup.repo.cleanup();
    }
  }

  it("reuses the outcome, spawning nothing, until HEAD, the index or a file changes", async () => {
    const { log, result, runs, replay } = await runCounted(true);

    expect(result).toMatchObject({ status: "completed", iterations: 10 });
    const ends = log.of("validator-end");
    expect(ends.map((event) => [event.iteration, event.cached === true])).toEqual([
      [1, true],
      [2, true],
      [3, true],
      [4, false],
      [5, false],
      [6, false],
      [7, false],
      [8, false],
      [9, true],
      [10, false],
    ]);
    // The baseline's run and one per iteration that was not cached.
    expect(runs).toBe(1 + 6);
    const starts = log.of("validator-start").map((event) => event.iteration);
    expect(starts).toEqual([4, 5, 6, 7, 8, 10]);
    expect(ends[0]).toMatchObject({ valid: false, cached: true, durationMs: 0 });
    expect(log.of("retry-select")).toHaveLength(9);
    expect(progressOf(log.events)).toContain("  ✗ counted cached");
    // docs/replay.md: the record's reused verdicts replay as the same decisions.
    expect(replay.differences.map(describeDifference)).toEqual([]);
    expect(replay.identical).toBe(true);
  });

  it("a validator with cache: false runs on every declaration", async () => {
    const { log, result, runs } = await runCounted(false);

    expect(result).toMatchObject({ status: "completed", iterations: 10 });
    expect(log.of("validator-end").some((event) => event.cached === true)).toBe(false);
    expect(runs).toBe(1 + 10);
  });

  it("a forged record cannot plant a verdict: the model writes a passing, cached end into events.jsonl and run.json, and the check's own verdict stands", async () => {
    const counter = join(outside, "runs");
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      validators: { counted: countingCheck(counter, true) },
      conditions: ["counted"],
      runner: { maxIterations: 2 },
    });
    try {
      const forge = async (request: BackendRequest) => {
        const runDir = join(
          setup.repo.dir,
          ".git",
          "closer",
          "runs",
          request.env.CLOSER_RUN_ID ?? "",
        );
        const forged = {
          type: "validator-end",
          iteration: 2,
          validator: "counted",
          valid: true,
          cached: true,
        };
        await appendFile(join(runDir, "events.jsonl"), `${JSON.stringify(forged)}\n`);
        const state = JSON.parse(await readFile(join(runDir, "run.json"), "utf8"));
        await writeFile(
          join(runDir, "run.json"),
          JSON.stringify({ ...state, status: "completed" }),
        );
      };
      const backend = makeScriptedBackend([
        { structuredOutput: DONE },
        { act: forge, structuredOutput: DONE },
      ]);
      const { log, result } = await runTask(setup, backend);

      expect(result.status).not.toBe("completed");
      const ends = log.of("validator-end");
      expect(ends.map((event) => [event.iteration, event.valid, event.cached === true])).toEqual([
        [1, false, true],
        [2, false, true],
      ]);
      expect(log.of("declaration-refuted")).toHaveLength(2);
      // Only the baseline ran the check: the reused verdict is the one closer measured.
      expect((await linesOf(counter)).length).toBe(1);
    } finally {
      await setup.repo.cleanup();
    }
  });
});
