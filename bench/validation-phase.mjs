/**
 * The validation phase (docs/performance.md#validation-phase): three
 * validators that sleep 0.3, 0.6 and 0.9 s check one declaration; the wall
 * of the phase (from its first validator start to its last validator end)
 * over the longest of them. The model writes a file before it declares, so
 * the tree differs from the baseline's and no verdict can be reused.
 */
import { performance } from "node:perf_hooks";
import { loadAgent } from "../dist/definition/load-agent.js";
import { runAgent } from "../dist/loop/index.js";
import { resolveRunSettings } from "../dist/run/index.js";
import { makeFixtureRepo, makeScriptedBackend, makeTestClock } from "../dist/testing/index.js";
import { median, round } from "./support.mjs";

const ROUNDS = 3;
const SLEEPS_S = [0.3, 0.6, 0.9];
const DECLARATION = { status: "completed", summary: "done", next_action: { action: "complete" } };

const validators = Object.fromEntries(
  SLEEPS_S.map((seconds) => [
    `sleep-${seconds}`,
    { type: "command", command: `sleep ${seconds}`, failurePattern: "failed" },
  ]),
);

const agent = {
  name: "phase",
  agent: { name: "phase", runner: { backend: { kind: "scripted" } } },
  registry: {
    entryStep: "do.task",
    completionPatterns: { failed: {} },
    validators,
    steps: { "do.task": { c2: "do", c3: "task", completionStep: "done.task" } },
    completionSteps: {
      "done.task": {
        c2: "retry",
        c3: "task",
        completionConditions: Object.keys(validators).map((validator) => ({ validator })),
        onFailure: { action: "retry", maxAttempts: 2 },
      },
    },
  },
  prompts: { "steps/do/task/f_default.md": "Do {{task.title}}.\n" },
};

/** @param {string} dir */
async function timePhase(dir) {
  const loaded = await loadAgent("phase", { cwd: dir });
  /** @type {number[]} */
  const starts = [];
  /** @type {number[]} */
  const ends = [];
  const settings = await resolveRunSettings({
    agent: loaded,
    backend: makeScriptedBackend([
      { files: { [`work-${performance.now()}.txt`]: "done\n" }, structuredOutput: DECLARATION },
    ]),
    cwd: dir,
    task: { kind: "text", title: "the phase", body: "" },
    clock: makeTestClock(),
    onEvent: (event) => {
      if (event.iteration !== 1) return;
      if (event.type === "validator-start") starts.push(performance.now());
      if (event.type === "validator-end") ends.push(performance.now());
    },
  });
  const result = await runAgent(settings);
  if (result.status !== "completed")
    throw new Error(`phase run ended ${result.status}: ${result.reason}`);
  return Math.max(...ends) - Math.min(...starts);
}

export async function measureValidationPhase() {
  const repo = await makeFixtureRepo({ files: { "README.md": "# phase\n" }, agents: [agent] });
  try {
    const phases = [];
    for (let round = 0; round < ROUNDS; round += 1) phases.push(await timePhase(repo.dir));
    const phaseMs = median(phases);
    const longestMs = Math.max(...SLEEPS_S) * 1000;
    return {
      validationPhaseMs: round(phaseMs),
      validationLongestMs: longestMs,
      validationPhaseRatio: round(phaseMs / longestMs),
    };
  } finally {
    await repo.cleanup();
  }
}
