/**
 * How long the model waits for its first query behind a slow test suite
 * (docs/performance.md#first-query): a task run (`runTask`, so the clean room is there) whose one
 * check takes 20 s (`sleep 20`), on a repository of a hundred files. The figure is from the
 * baseline's start (the project's setup has ended) to the first query sent, both as the run's
 * listener hears them. Once the first query is sent the round is aborted: the check is stopped
 * with it, so a round costs about a second, not the suite's 20. The OS sandbox is off.
 */
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { loadAgent } from "../dist/definition/load-agent.js";
import { runTask } from "../dist/run/index.js";
import { makeFixtureRepo, makeScriptedBackend } from "../dist/testing/index.js";
import { median, round } from "./support.mjs";

const ROUNDS = 5;
const SUITE_SECONDS = 20;
/** Upper bound of `firstQueryAfterSetupMs` (docs/performance.md#targets). */
const TARGET_MS = 1000;

const agent = {
  name: "first-query",
  agent: {
    name: "first-query",
    runner: { backend: { kind: "scripted" }, sandbox: { mode: "off" } },
  },
  registry: {
    entryStep: "do.task",
    completionPatterns: { failed: {} },
    validators: {
      suite: { type: "command", command: `sleep ${SUITE_SECONDS}`, failurePattern: "failed" },
    },
    steps: { "do.task": { c2: "do", c3: "task", completionStep: "done.task" } },
    completionSteps: {
      "done.task": {
        c2: "retry",
        c3: "task",
        completionConditions: [{ validator: "suite" }],
        onFailure: { action: "retry", maxAttempts: 2 },
      },
    },
  },
  prompts: { "steps/do/task/f_default.md": "Do {{task.title}}.\n" },
};

function projectFiles() {
  const files = {};
  for (let index = 0; index < 100; index += 1) files[`src/file-${index}.txt`] = `line ${index}\n`;
  return files;
}

/** One round: ms from the baseline's start to the first query, and whether the suite had ended. */
async function timeFirstQuery(dir, loaded) {
  const stop = new AbortController();
  let baselineStartMs = 0;
  let firstQueryMs = 0;
  let baselineEnded = false;
  await runTask({
    agent: loaded,
    cwd: dir,
    task: { kind: "text", title: "the first query", body: "" },
    signal: stop.signal,
    // The model thinks until the round is aborted.
    backend: makeScriptedBackend([{ delayMs: 600_000, text: "never answered" }]),
    onEvent: (event) => {
      if (event.type === "baseline-start") baselineStartMs = performance.now();
      if (event.type === "baseline") baselineEnded = true;
      if (event.type === "backend-start" && firstQueryMs === 0) {
        firstQueryMs = performance.now();
        stop.abort();
      }
    },
  });
  if (firstQueryMs === 0 || baselineStartMs === 0) throw new Error("no first query was sent");
  return { ms: firstQueryMs - baselineStartMs, baselineEnded };
}

export async function measureFirstQuery() {
  const repo = await makeFixtureRepo({ files: projectFiles(), agents: [agent] });
  try {
    const loaded = await loadAgent("first-query", { cwd: repo.dir });
    const rounds = [];
    for (let index = 0; index < ROUNDS; index += 1) {
      rounds.push(await timeFirstQuery(repo.dir, loaded));
    }
    const firstQueryAfterSetupMs = round(median(rounds.map((entry) => entry.ms)));
    return {
      firstQuerySuiteMs: SUITE_SECONDS * 1000,
      firstQueryAfterSetupMs,
      firstQueryAfterSetupTargetMs: TARGET_MS,
      firstQueryAfterSetupMet: firstQueryAfterSetupMs <= TARGET_MS,
      // Whether any round's suite ended before its first query: the query then waited for it.
      firstQueryWaitedForSuite: rounds.some((entry) => entry.baselineEnded),
    };
  } finally {
    await repo.cleanup();
  }
}

// `node bench/first-query.mjs` measures this part alone (after `npm run build`).
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.stdout.write(`${JSON.stringify(await measureFirstQuery())}\n`);
}
