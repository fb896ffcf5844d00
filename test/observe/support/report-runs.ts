import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { makeScriptedBackend } from "../../../src/testing/index.js";
import { cli } from "../../cli/support/cli-repo.js";
import { copyExampleRepo } from "../../example/example-repo.js";
import {
  BROKEN_PROJECT,
  COMMIT_ALL,
  DONE,
  FIXED_ADD,
  makeTaskRepo,
  runTask,
} from "../../scenarios/support/task-agent.js";
import { INJECTION } from "./run-views.js";

/** A run recorded for a report test, and how to remove what it left. */
export interface RunForReport {
  readonly runDir: string;
  readonly iterations: number;
  cleanup(): Promise<void>;
}

/** A test whose name is markup, failing until add() adds: node's test runner prints the name. */
const INJECTION_TEST = `
import assert from "node:assert/strict";
import { test } from "node:test";
import { add } from "../src/add.js";

test(${JSON.stringify(INJECTION)}, () => {
  assert.equal(add(2, 3), 5);
});
`;

/**
 * A real run through the loop with the scripted model: the task and a failing
 * test's output carry markup; the model declares done, the test fails, it
 * fixes add() and the run completes in two iterations.
 */
export async function recordMarkupRun(): Promise<RunForReport> {
  const setup = await makeTaskRepo({
    files: { ...BROKEN_PROJECT, "test/add.test.js": INJECTION_TEST },
  });
  const backend = makeScriptedBackend([
    { structuredOutput: DONE, costUsd: 0.021 },
    {
      files: { "src/add.js": FIXED_ADD },
      commands: [COMMIT_ALL],
      structuredOutput: DONE,
      costUsd: 0.034,
    },
  ]);
  const { result } = await runTask(setup, backend, {
    task: { kind: "text", title: "make add() add", body: `The test ${INJECTION} fails.` },
  });
  if (result.status !== "completed")
    throw new Error(`the run ended ${result.status}: ${result.reason}`);
  return { runDir: result.runDir, iterations: result.iterations, cleanup: setup.repo.cleanup };
}

/** The README demo's run: the bundled example agent on the example repo, through the replay backend. */
export async function recordDemoRun(): Promise<RunForReport> {
  const repo = await copyExampleRepo();
  const run = await cli(
    "run",
    "example",
    "--cwd",
    repo.dir,
    "--task-file",
    join(repo.dir, "TASK.md"),
    "--no-worktree",
    "--backend",
    "replay",
    "--json",
  );
  if (run.code !== 0) throw new Error(`the demo run failed (${run.code}): ${run.stderr}`);
  const outcome = JSON.parse(run.stdout.trim()) as { runDir: string; iterations: number };
  return { runDir: outcome.runDir, iterations: outcome.iterations, cleanup: repo.cleanup };
}

/** The `tool-call` events of a two-iteration run, as the record writes them (docs/record.md#events). */
const TOOL_CALLS = [
  {
    iteration: 1,
    tool: "Read",
    action: "read",
    target: "src/add.js",
    failed: false,
    durationMs: 12,
  },
  {
    iteration: 1,
    tool: "Bash",
    action: "command",
    target: "npm test",
    exitCode: 1,
    failed: true,
    durationMs: 2300,
  },
  {
    iteration: 2,
    tool: "Write",
    action: "write",
    target: "src/add.js",
    failed: false,
    durationMs: 8,
  },
  {
    iteration: 2,
    tool: "Bash",
    action: "command",
    target: "git add --all && git commit --quiet -m work",
    exitCode: 0,
    failed: false,
    durationMs: 90,
  },
] as const;

/**
 * Gives a recorded run the model's tool calls when its backend reported none: the scripted
 * backend runs no tools of its own. Returns how many `tool-call` events the run then has.
 */
export async function ensureToolCallEvents(runDir: string): Promise<number> {
  const file = join(runDir, "events.jsonl");
  const lines = (await readFile(file, "utf8")).split("\n").filter((line) => line !== "");
  const recorded = lines.filter((line) => line.includes('"type":"tool-call"')).length;
  if (recorded > 0) return recorded;
  const runId = (JSON.parse(lines[0] ?? "{}") as { runId?: string }).runId ?? "";
  const at = (JSON.parse(lines.at(-1) ?? "{}") as { at?: number }).at ?? 0;
  const events = TOOL_CALLS.map((call) =>
    JSON.stringify({ v: 1, at, runId, type: "tool-call", ...call }),
  );
  await appendFile(file, `${events.join("\n")}\n`);
  return TOOL_CALLS.length;
}
