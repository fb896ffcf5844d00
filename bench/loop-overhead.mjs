/**
 * Controller overhead of the loop (docs/performance.md#loop-overhead): 200
 * iterations with a scripted model and two trivial validators in a real temp
 * repository, beside the floor — the same commands spawned in a bare loop
 * with runCommand. Then what the OS sandbox costs each validator
 * (sandbox-cost.mjs). Peak RSS is the process's maxRSS during the loop's runs.
 *
 * It runs the compiled build (`npm run bench` builds first), so it measures
 * the code that ships, without a TypeScript loader in the process.
 */
import { performance } from "node:perf_hooks";
import { applyCliOverrides } from "../dist/definition/apply-cli-overrides.js";
import { loadAgent } from "../dist/definition/load-agent.js";
import { runAgent } from "../dist/loop/index.js";
import { runCommand } from "../dist/process/shell-command.js";
import { resolveRunSettings } from "../dist/run/index.js";
import { makeFixtureRepo, makeScriptedBackend, makeTestClock } from "../dist/testing/index.js";
import { PINNED_CONFIG } from "../dist/workspace/git.js";
import { FINGERPRINT_STATUS } from "../dist/workspace/tree-fingerprint.js";
import { measureSandboxCost } from "./sandbox-cost.mjs";
import { megabytes, round } from "./support.mjs";

const ITERATIONS = 200;
/** The iterations are split into interleaved runs of the loop and of the floor. */
const ROUNDS = 4;
const COMMANDS = ["true", "git status --porcelain"];
/**
 * What a guarantee makes every declaration start besides its checks, in the floor too
 * (docs/performance.md#floor): HEAD and the tree the checks start on, one `git status`
 * (docs/integrity.md#one-commit), as closer runs it.
 */
const GUARANTEE_COMMANDS = [
  ["git", ...PINNED_CONFIG.flatMap((entry) => ["-c", entry]), ...FINGERPRINT_STATUS],
];
const TIMEOUT_MS = 30_000;

const agent = {
  name: "bench",
  agent: { name: "bench", runner: { backend: { kind: "scripted" } } },
  registry: {
    entryStep: "do.task",
    completionPatterns: { "git-dirty": { params: ["untrackedFiles"] } },
    validators: {
      noop: { type: "command", command: COMMANDS[0], failurePattern: "git-dirty", cache: false },
      "git-clean": {
        type: "command",
        command: COMMANDS[1],
        successWhen: "empty",
        failurePattern: "git-dirty",
        cache: false,
        extractParams: { untrackedFiles: "parseUntrackedFiles" },
      },
    },
    steps: {
      "do.task": {
        outputSchemaRef: { file: "step.schema.json", schema: "step" },
        completionStep: "done.task",
      },
    },
    completionSteps: {
      "done.task": {
        c2: "retry",
        c3: "task",
        completionConditions: [{ validator: "noop" }, { validator: "git-clean" }],
        onFailure: { action: "retry", maxAttempts: ITERATIONS * 2 },
      },
    },
  },
  schemas: {
    "step.schema.json": {
      step: { type: "object", properties: { status: { type: "string" } }, required: ["status"] },
    },
  },
  prompts: {
    "steps/do/task/f_default.md": "Do {{task.title}} (iteration {{iteration}}).\n",
    "steps/retry/task/f_failed_git-dirty.md":
      "Commit these:\n{{#each untrackedFiles}}- {{this}}\n{{/each}}\n{{previousSummary}}\n",
  },
};

/**
 * One run of the loop for `iterations` iterations; its wall time.
 * @param {import("../dist/definition/types.js").ResolvedAgent} loaded
 * @param {string} agentDir
 * @param {number} iterations
 * @returns {Promise<number>}
 */
async function timeLoop(loaded, agentDir, iterations) {
  const backend = makeScriptedBackend(
    Array.from({ length: iterations }, () => ({ structuredOutput: { status: "completed" } })),
  );
  const startedMs = performance.now();
  const settings = await resolveRunSettings({
    agent: applyCliOverrides(loaded, { maxIterations: iterations }),
    backend,
    cwd: agentDir,
    task: { kind: "text", title: "the benchmark task", body: "" },
    clock: makeTestClock(),
  });
  const result = await runAgent(settings);
  const elapsedMs = performance.now() - startedMs;
  if (result.status !== "max_iterations" || result.iterations !== iterations) {
    throw new Error(
      `benchmark run ended ${result.status} after ${result.iterations}: ${result.reason}`,
    );
  }
  return elapsedMs;
}

/**
 * The same commands as the validators, and those a guarantee needs, spawned in a bare loop; its
 * wall time.
 * @param {string} cwd
 * @param {number} iterations
 * @returns {Promise<number>}
 */
async function timeFloor(cwd, iterations) {
  const startedMs = performance.now();
  for (let iteration = 0; iteration < iterations; iteration += 1) {
    for (const command of GUARANTEE_COMMANDS) {
      await runCommand({ command, cwd, timeoutMs: TIMEOUT_MS });
    }
    for (const command of COMMANDS) await runCommand({ command, cwd, timeoutMs: TIMEOUT_MS });
  }
  return performance.now() - startedMs;
}

export async function measureLoopOverhead() {
  const repo = await makeFixtureRepo({ files: { "README.md": "# bench\n" }, agents: [agent] });
  try {
    // An untracked file keeps the git check failing, so every iteration runs the whole retry path.
    await runCommand({ command: "touch untracked.txt", cwd: repo.dir, timeoutMs: TIMEOUT_MS });
    const loaded = await loadAgent("bench", { cwd: repo.dir });
    const baselineRssMb = megabytes(process.memoryUsage().rss);
    await timeFloor(repo.dir, ITERATIONS / ROUNDS); // warm-up: file cache, git index, the JIT
    const floorPeakRssMb = megabytes(process.resourceUsage().maxRSS * 1024);
    // Interleaved rounds, alternating which goes first, so machine load and heap size
    // (a bigger process forks more slowly) weigh on both sides alike.
    const loop = { ms: 0, cpuMs: 0 };
    const floor = { ms: 0, cpuMs: 0 };
    const size = ITERATIONS / ROUNDS;
    /**
     * @param {{ ms: number, cpuMs: number }} into
     * @param {() => Promise<number>} work
     */
    const measure = async (into, work) => {
      const cpuBefore = process.cpuUsage();
      into.ms += await work();
      const cpu = process.cpuUsage(cpuBefore);
      into.cpuMs += (cpu.user + cpu.system) / 1000;
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      const loopRun = () => measure(loop, () => timeLoop(loaded, repo.dir, size));
      const floorRun = () => measure(floor, () => timeFloor(repo.dir, size));
      for (const run of round % 2 === 0 ? [floorRun, loopRun] : [loopRun, floorRun]) await run();
    }
    const loopPerIterationMs = loop.ms / ITERATIONS;
    const floorPerIterationMs = floor.ms / ITERATIONS;
    const peakRssMb = megabytes(process.resourceUsage().maxRSS * 1024);
    // After the loop's figures: the sandbox's library and proxy would weigh on them.
    const sandbox = await measureSandboxCost(loaded, repo.dir, "git-clean");
    return {
      iterations: ITERATIONS,
      runs: ROUNDS,
      commandsPerIteration: COMMANDS.length,
      guaranteeCommandsPerIteration: GUARANTEE_COMMANDS.length,
      loopMsPerIteration: round(loopPerIterationMs),
      floorMsPerIteration: round(floorPerIterationMs),
      overheadMsPerIteration: round(loopPerIterationMs - floorPerIterationMs),
      ratio: round(loopPerIterationMs / floorPerIterationMs),
      // CPU time of this process alone (children excluded): what the controller itself costs.
      loopCpuMsPerIteration: round(loop.cpuMs / ITERATIONS),
      floorCpuMsPerIteration: round(floor.cpuMs / ITERATIONS),
      peakRssMb,
      floorPeakRssMb,
      baselineRssMb,
      ...sandbox,
    };
  } finally {
    await repo.cleanup();
  }
}
