import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { runAgent } from "../../src/loop/index.js";
import { resolveRunSettings } from "../../src/run/index.js";
import { makeScriptedBackend, makeTestClock } from "../../src/testing/index.js";
import { DONE, FIXED_PROJECT, makeTaskRepo, TASK } from "./support/task-agent.js";

/** A diff long to read and keep (over the record's field cap: kept gzipped). */
const LONG = Array.from({ length: 100_000 }, (_, n) => `line ${n}\n`).join("");

/** The iteration's diff, plain or gzipped (docs/record.md#bounded-record); undefined when none. */
function readDiff(runDir: string, iteration: number): string | undefined {
  const file = join(runDir, "diffs", `iteration-00${iteration}.diff`);
  if (existsSync(`${file}.gz`)) return gunzipSync(readFileSync(`${file}.gz`)).toString();
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

describe("docs/record.md#diffs: the bare loop's diffs, written ahead and kept beside the next query", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  it("each diff ends where its iteration ended, never in the next one's edits, and all are kept when the run ends", async () => {
    const setup = await makeTaskRepo({
      files: FIXED_PROJECT,
      validators: {
        "says-three": {
          type: "command",
          command: "grep -qx three notes.txt",
          successWhen: "exitCode:0",
          failurePattern: "test-failed",
        },
      },
      conditions: ["says-three"],
    });
    cleanup = setup.repo.cleanup;
    let keptAtEnd: (string | undefined)[] = [];
    const settings = await resolveRunSettings({
      agent: setup.agent,
      backend: makeScriptedBackend([
        { files: { "notes.txt": "one\n" }, structuredOutput: DONE },
        { files: { "notes.txt": "three\n", "long.txt": LONG }, structuredOutput: DONE },
      ]),
      cwd: setup.repo.dir,
      task: TASK,
      clock: makeTestClock(),
      // What the record holds as the run's end is told: every diff is kept by then.
      onEvent: (event) => {
        if (event.type !== "run-end") return;
        const runDir = join(setup.repo.dir, ".git", "closer", "runs", event.runId);
        keptAtEnd = [1, 2].map((iteration) => readDiff(runDir, iteration));
      },
    });
    const result = await runAgent(settings);

    expect(result).toMatchObject({ status: "completed", iterations: 2 });
    const [first, second] = keptAtEnd;
    expect(first).toContain("+one");
    expect(first).not.toContain("three");
    expect(second).toMatch(/-one\n\+three/);
    expect(second).toContain("+line 99999");
  });
});
