import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { runAgent } from "../../src/loop/index.js";
import type { RunEvent } from "../../src/ports/events.js";
import { resolveRunSettings, runTask } from "../../src/run/index.js";
import { makeScriptedBackend, makeTestClock, type ScriptedStep } from "../../src/testing/index.js";
import { DONE, FIXED_PROJECT, makeTaskRepo, TASK } from "./support/task-agent.js";

/** A diff long to read and keep (over the record's field cap: kept gzipped). */
const LONG = Array.from({ length: 100_000 }, (_, n) => `line ${n}\n`).join("");

/** Refutes the first declaration (notes.txt says "one"), verifies the second ("three"). */
const SAYS_THREE = {
  type: "command",
  command: "grep -qx three notes.txt",
  successWhen: "exitCode:0",
  failurePattern: "not-three",
};

const TURNS: ScriptedStep[] = [
  { files: { "notes.txt": "one\n" }, structuredOutput: DONE },
  { files: { "notes.txt": "three\n", "long.txt": LONG }, structuredOutput: DONE },
];

/** A project whose one check wants notes.txt to say "three". */
function makeNotesRepo() {
  return makeTaskRepo({
    files: FIXED_PROJECT,
    validators: { "says-three": SAYS_THREE },
    patterns: { "not-three": { description: "notes.txt does not say three" } },
    prompts: { "steps/retry/task/f_failed_not-three.md": "Make notes.txt say three.\n" },
    conditions: ["says-three"],
  });
}

/** The iteration's diff, plain or gzipped (docs/record.md#bounded-record); undefined when none. */
function readDiff(runDir: string, iteration: number): string | undefined {
  const file = join(runDir, "diffs", `iteration-00${iteration}.diff`);
  if (existsSync(`${file}.gz`)) return gunzipSync(readFileSync(`${file}.gz`)).toString();
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

describe("docs/record.md#diffs: each iteration's diff, its end fixed before the loop goes on, kept beside the next query", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  /**
   * Runs the two turns, the bare loop's way (checks in the tree) or the CLI's (checks in the
   * clean room); the diffs the record holds when the run's end is told, when every one must be
   * kept.
   */
  async function runTurns(way: "bare loop" | "clean room") {
    const setup = await makeNotesRepo();
    cleanup = setup.repo.cleanup;
    let keptAtEnd: (string | undefined)[] = [];
    const onEvent = (event: RunEvent) => {
      if (event.type !== "run-end") return;
      const runDir = join(setup.repo.dir, ".git", "closer", "runs", event.runId);
      keptAtEnd = [1, 2].map((iteration) => readDiff(runDir, iteration));
    };
    const options = {
      agent: setup.agent,
      backend: makeScriptedBackend(TURNS),
      cwd: setup.repo.dir,
      task: TASK,
      clock: makeTestClock(),
      onEvent,
    };
    const result =
      way === "bare loop"
        ? await runAgent(await resolveRunSettings(options))
        : await runTask({ ...options, worktree: false });
    return { result, keptAtEnd };
  }

  it.each(["bare loop", "clean room"] as const)(
    "%s: each diff ends where its iteration ended, never in the next one's edits, and all are kept when the run ends",
    async (way) => {
      const { result, keptAtEnd } = await runTurns(way);

      expect(result).toMatchObject({ status: "completed", iterations: 2 });
      const [first, second] = keptAtEnd;
      expect(first).toContain("+one");
      expect(first).not.toContain("three");
      expect(second).toMatch(/-one\n\+three/);
      expect(second).toContain("+line 99999");
    },
  );

  it("outside git no diff is kept, and the run is not held up for one", async () => {
    const setup = await makeNotesRepo();
    cleanup = setup.repo.cleanup;
    await rm(join(setup.repo.dir, ".git"), { recursive: true, force: true });
    const settings = await resolveRunSettings({
      agent: setup.agent,
      backend: makeScriptedBackend(TURNS),
      cwd: setup.repo.dir,
      task: TASK,
      clock: makeTestClock(),
    });
    const result = await runAgent(settings);

    expect(result).toMatchObject({ status: "completed", iterations: 2 });
    expect(existsSync(join(result.runDir, "diffs"))).toBe(false);
  });
});
