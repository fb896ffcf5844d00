/**
 * What judging one declaration costs closer beyond its checks, on a repository of 10,000
 * files (docs/performance.md#verdict-phase): a task run (`runTask`, so the clean room, the
 * one-commit hold and the guards are all there) whose model changes one file and declares,
 * checked by one validator that does nothing (`true`). The phase is timed from the model's
 * answer to the run's end (no side effect follows in the project folder), less the validator's
 * own time; the clean room's rebuild and
 * its read of what the checks wrote are also timed on their own, and the same phase of the bare
 * loop, whose checks run in the tree (`verdictPhaseInTreeMs`). The OS sandbox is off: its cost is
 * measured on its own (sandbox-cost.mjs).
 */
import { writeFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { loadAgent } from "../dist/definition/load-agent.js";
import { runAgent } from "../dist/loop/index.js";
import { resolveRunSettings, runTask } from "../dist/run/index.js";
import { makeFixtureRepo, makeScriptedBackend, makeTestClock } from "../dist/testing/index.js";
import { openChecksRoom } from "../dist/workspace/checks-room.js";
import { readGitRepository } from "../dist/workspace/git-place.js";
import { median, round } from "./support.mjs";

const FILES = 10_000;
const ROUNDS = 5;
const DECLARATION = { status: "completed", summary: "done", next_action: { action: "complete" } };

const agent = {
  name: "verdict",
  agent: {
    name: "verdict",
    runner: { backend: { kind: "scripted" }, sandbox: { mode: "off" } },
  },
  registry: {
    entryStep: "do.task",
    completionPatterns: { failed: {} },
    validators: { noop: { type: "command", command: "true", failurePattern: "failed" } },
    steps: { "do.task": { c2: "do", c3: "task", completionStep: "done.task" } },
    completionSteps: {
      "done.task": {
        c2: "retry",
        c3: "task",
        completionConditions: [{ validator: "noop" }],
        onFailure: { action: "retry", maxAttempts: 2 },
      },
    },
  },
  prompts: { "steps/do/task/f_default.md": "Do {{task.title}}.\n" },
};

function projectFiles() {
  const files = {};
  for (let index = 0; index < FILES; index += 1) {
    files[`src/part-${index % 100}/file-${index}.txt`] = `line ${index}\n`;
  }
  return files;
}

/**
 * One declaration's verdict phase, its validator's time taken out (ms): through `runTask` (the
 * clean room), or through the bare loop, which judges in the tree (`bare`).
 */
async function timeVerdict(dir, loaded, round, bare = false) {
  let answeredMs = 0;
  let decidedMs = 0;
  let checksMs = 0;
  const refuted = [];
  const run = bare ? async (options) => runAgent(await resolveRunSettings(options)) : runTask;
  const outcome = await run({
    agent: loaded,
    cwd: dir,
    task: { kind: "text", title: "the verdict", body: "" },
    clock: makeTestClock(),
    backend: makeScriptedBackend([
      {
        files: { [`src/part-${round}/file-${round}.txt`]: `changed ${round}\n` },
        commands: [`git commit --quiet --all -m "round ${round}"`],
        structuredOutput: DECLARATION,
      },
    ]),
    onEvent: (event) => {
      if (event.type === "declaration-refuted") refuted.push(`${event.pattern}: ${event.detail}`);
      if (event.type === "run-end") decidedMs = performance.now();
      if (event.iteration !== 1) return;
      if (event.type === "backend-end") answeredMs = performance.now();
      if (event.type === "validator-end") checksMs += event.durationMs;
    },
  });
  if (outcome.status !== "completed")
    throw new Error(`verdict run ended ${outcome.status}: ${outcome.reason} ${refuted.join("; ")}`);
  return decidedMs - answeredMs - checksMs;
}

/** The clean room alone: a rebuild after one changed file, and the read of what checks wrote. */
async function timeRoom(dir) {
  const repository = await readGitRepository(dir);
  const room = await openChecksRoom({ repository, cwd: dir });
  try {
    await room.rebuild();
    const rebuilds = [];
    const reads = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      await writeFile(`${dir}/src/part-1/file-1.txt`, `room ${round}\n`);
      const started = performance.now();
      const view = await room.rebuild();
      rebuilds.push(performance.now() - started);
      const read = performance.now();
      await view.readWrites();
      reads.push(performance.now() - read);
    }
    return { rebuildMs: median(rebuilds), readWritesMs: median(reads) };
  } finally {
    await room.remove();
  }
}

export async function measureVerdictPhase() {
  const repo = await makeFixtureRepo({ files: projectFiles(), agents: [agent] });
  try {
    const loaded = await loadAgent("verdict", { cwd: repo.dir });
    const phases = [];
    const barePhases = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      phases.push(await timeVerdict(repo.dir, loaded, round));
      barePhases.push(await timeVerdict(repo.dir, loaded, round + ROUNDS, true));
    }
    const room = await timeRoom(repo.dir);
    return {
      verdictPhaseFiles: FILES,
      verdictPhaseAddedMs: round(median(phases)),
      verdictPhaseInTreeMs: round(median(barePhases)),
      checksRoomRebuildMs: round(room.rebuildMs),
      checksRoomReadWritesMs: round(room.readWritesMs),
    };
  } finally {
    await repo.cleanup();
  }
}
