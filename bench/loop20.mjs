/**
 * A whole `closer run` process beside its floor (docs/performance.md#loop20):
 * the `command` backend's "model" is a bash line that bumps a counter and
 * declares done; one validator tests `counter >= 20`; so the run takes 20
 * iterations. The floor is a bare Node process making the spawns the run must
 * make, the model's and the check's, and those closer's guarantees need
 * (loop20-floor.mjs, docs/performance.md#floor). The run is timed with the OS
 * sandbox off, and on (where it works) over the same floor; its per-process
 * cost is measured on its own (sandbox-cost.mjs). Peak RSS is closer's own
 * process (rss-probe.mjs); the processes it starts are counted by kind
 * (spawn-probe.mjs) beside the floor's.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeFixtureRepo } from "../dist/testing/index.js";
import { closerBin, interleave, median, megabytes, round, timeProcess } from "./support.mjs";

const ROUNDS = 5;
export const ITERATIONS = 20;
export const MODEL_LINE =
  "n=$(cat counter 2>/dev/null || echo 0); echo $((n+1)) > counter; echo COMPLETE";
export const CHECK_LINE = `test "$(cat counter)" -ge ${ITERATIONS}`;
const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/** The loop's agent: the `command` backend's bash line, one check of the counter. */
export const LOOP20_AGENT = {
  name: "loop20",
  agent: {
    name: "loop20",
    runner: {
      backend: { kind: "command", command: ["bash", "-c", MODEL_LINE] },
      maxIterations: ITERATIONS + 5,
    },
  },
  registry: {
    entryStep: "initial.task",
    completionPatterns: { "not-yet": {} },
    validators: {
      counter: { type: "command", command: CHECK_LINE, failurePattern: "not-yet" },
    },
    steps: { "initial.task": { c2: "initial", c3: "task", completionStep: "done.task" } },
    completionSteps: {
      "done.task": {
        c2: "retry",
        c3: "task",
        completionConditions: [{ validator: "counter" }],
        onFailure: { action: "retry", maxAttempts: ITERATIONS + 5 },
      },
    },
  },
  prompts: {
    "steps/initial/task/f_default.md": "Bump the counter: {{task.title}}\n",
    "steps/retry/task/f_failed_not-yet.md": "Not yet. Bump it again.\n",
  },
};

export async function measureLoop20() {
  const repo = await makeFixtureRepo({
    files: { "README.md": "# loop20\n" },
    agents: [LOOP20_AGENT],
  });
  try {
    const counter = join(repo.dir, "counter");
    const rssFile = join(repo.dir, ".git", "bench-rss");
    const spawnFile = join(repo.dir, ".git", "bench-spawns");
    const promptFile = join(repo.dir, ".git", "bench-prompt");
    writeFileSync(promptFile, "Bump the counter: count to twenty\n".repeat(10));
    const bin = closerBin();
    const peaks = { off: [], on: [] };
    /** @type {Record<string, Record<string, number>>} */
    const spawned = {};
    const readCounter = () => Number(readFileSync(counter, "utf8"));
    /** @param {"off" | "on"} sandbox */
    const closerRun = async (sandbox) => {
      rmSync(counter, { force: true });
      const ms = await timeProcess(
        process.execPath,
        [
          "--import",
          here("./rss-probe.mjs"),
          "--import",
          here("./spawn-probe.mjs"),
          bin,
          "run",
          "loop20",
          "--task",
          "count",
          "--sandbox",
          sandbox,
        ],
        { cwd: repo.dir, env: { BENCH_RSS_FILE: rssFile, BENCH_SPAWN_FILE: spawnFile } },
      );
      if (readCounter() !== ITERATIONS)
        throw new Error(`the loop ended after ${readCounter()} iterations`);
      peaks[sandbox].push(Number(readFileSync(rssFile, "utf8")));
      spawned[sandbox] = JSON.parse(readFileSync(spawnFile, "utf8"));
      return ms;
    };
    const floorRun = async () => {
      rmSync(counter, { force: true });
      const ms = await timeProcess(
        process.execPath,
        [
          here("./loop20-floor.mjs"),
          repo.dir,
          promptFile,
          MODEL_LINE,
          CHECK_LINE,
          String(ITERATIONS),
        ],
        { cwd: repo.dir, env: { BENCH_SPAWN_FILE: spawnFile } },
      );
      spawned.floor = JSON.parse(readFileSync(spawnFile, "utf8"));
      return ms;
    };
    const sandboxWorks = await closerRun("on").then(
      () => undefined,
      (error) => String(error).split("\n").slice(0, 3).join(" "),
    );
    const works = {
      closer: () => closerRun("off"),
      floor: floorRun,
      ...(sandboxWorks === undefined ? { sandboxed: () => closerRun("on") } : {}),
    };
    const times = await interleave(works, ROUNDS);
    const closerMs = median(times.closer);
    const floorMs = median(times.floor);
    const sandboxMs = times.sandboxed === undefined ? null : median(times.sandboxed);
    return {
      loop20Ms: round(closerMs),
      loop20FloorMs: round(floorMs),
      loop20Ratio: round(closerMs / floorMs),
      loop20PeakRssMb: megabytes(median(peaks.off)),
      loop20SandboxMs: sandboxMs === null ? null : round(sandboxMs),
      loop20SandboxRatio: sandboxMs === null ? null : round(sandboxMs / floorMs),
      loop20SandboxPeakRssMb: sandboxMs === null ? null : megabytes(median(peaks.on)),
      ...(sandboxWorks === undefined ? {} : { loop20SandboxUnavailable: sandboxWorks }),
      loop20Spread: spreadOf(times),
      loop20Processes: processesOf(spawned.off ?? {}, spawned.floor ?? {}),
    };
  } finally {
    await repo.cleanup();
  }
}

/**
 * How far each side's runs lay from their median, the widest of them, in per cent: how noisy
 * the machine was.
 * @param {Record<string, number[]>} times
 */
function spreadOf(times) {
  return Object.fromEntries(
    Object.entries(times).map(([name, values]) => {
      const middle = median(values);
      const widest = Math.max(...values.map((value) => Math.abs(value - middle)));
      return [name, Math.round((widest / middle) * 1000) / 10];
    }),
  );
}

/**
 * The processes closer started and the floor's, and by kind those closer started more (a
 * guarantee needs none of them) or fewer than the floor.
 * @param {Record<string, number>} closer
 * @param {Record<string, number>} floor
 */
function processesOf(closer, floor) {
  const total = (counts) => Object.values(counts).reduce((sum, count) => sum + count, 0);
  const kinds = [...new Set([...Object.keys(closer), ...Object.keys(floor)])].sort();
  const beyondFloor = Object.fromEntries(
    kinds
      .map((kind) => [kind, (closer[kind] ?? 0) - (floor[kind] ?? 0)])
      .filter(([, difference]) => difference !== 0),
  );
  return { closer: total(closer), floor: total(floor), beyondFloor };
}
