/**
 * A whole `closer run` process beside its floor (docs/performance.md#loop20):
 * the `command` backend's "model" is a bash line that bumps a counter and
 * declares done; one validator tests `counter >= 20`; so the run takes 20
 * iterations, 40 spawns. The floor is a bare Node process making the same 40
 * spawns (loop20-floor.mjs). The OS sandbox is off: its cost is measured on
 * its own (sandbox-cost.mjs). Peak RSS is closer's own process (rss-probe.mjs).
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeFixtureRepo } from "../dist/testing/index.js";
import { closerBin, interleave, median, megabytes, round, timeProcess } from "./support.mjs";

const ROUNDS = 5;
const ITERATIONS = 20;
const MODEL_LINE = "n=$(cat counter 2>/dev/null || echo 0); echo $((n+1)) > counter; echo COMPLETE";
const CHECK_LINE = `test "$(cat counter)" -ge ${ITERATIONS}`;
const here = (path) => fileURLToPath(new URL(path, import.meta.url));

const agent = {
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
  const repo = await makeFixtureRepo({ files: { "README.md": "# loop20\n" }, agents: [agent] });
  try {
    const counter = join(repo.dir, "counter");
    const rssFile = join(repo.dir, ".git", "bench-rss");
    const promptFile = join(repo.dir, ".git", "bench-prompt");
    writeFileSync(promptFile, "Bump the counter: count to twenty\n".repeat(10));
    const bin = closerBin();
    const peaks = [];
    const closerRun = async () => {
      rmSync(counter, { force: true });
      const ms = await timeProcess(
        process.execPath,
        [
          "--import",
          here("./rss-probe.mjs"),
          bin,
          "run",
          "loop20",
          "--task",
          "count",
          "--sandbox",
          "off",
        ],
        { cwd: repo.dir, env: { BENCH_RSS_FILE: rssFile } },
      );
      const count = Number(readFileSync(counter, "utf8"));
      if (count !== ITERATIONS) throw new Error(`the loop ended after ${count} iterations`);
      peaks.push(Number(readFileSync(rssFile, "utf8")));
      return ms;
    };
    const floorRun = () => {
      rmSync(counter, { force: true });
      return timeProcess(
        process.execPath,
        [
          here("./loop20-floor.mjs"),
          repo.dir,
          promptFile,
          MODEL_LINE,
          CHECK_LINE,
          String(ITERATIONS),
        ],
        { cwd: repo.dir },
      );
    };
    const times = await interleave({ closer: closerRun, floor: floorRun }, ROUNDS);
    const closerMs = median(times.closer);
    const floorMs = median(times.floor);
    return {
      loop20Ms: round(closerMs),
      loop20FloorMs: round(floorMs),
      loop20Ratio: round(closerMs / floorMs),
      loop20PeakRssMb: megabytes(median(peaks)),
    };
  } finally {
    await repo.cleanup();
  }
}
