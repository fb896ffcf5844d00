/**
 * The queue's throughput and overhead (docs/performance.md#queue): 20 trivial
 * task jobs through one `closer worker` and through four (concurrency 1 each),
 * each job a real closer run in the worker's clone; the ratio of throughputs;
 * and the time per job through one worker over a direct `closer run` of the
 * same task; and the time from a label on an issue (a webhook delivery to
 * `closer serve`) to its run's first query on a waiting worker. The figures
 * need a redis-server on this machine; without one the part says why in
 * `queueSkipped`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { enqueueJobs, openQueue } from "../dist/queue/index.js";
import { makeFixtureRepo } from "../dist/testing/index.js";
import { LABELLED_AGENT, timeLabelToFirstQuery } from "./label-to-query.mjs";
import { closerBin, median, round, timeProcess } from "./support.mjs";

const JOBS = 20;
const DIRECT_ROUNDS = 5;
const MODEL_LINE =
  'echo "$RANDOM $$" > "work-$$-$RANDOM.txt" && git add -A && git commit -qm work && echo COMPLETE';

const agent = {
  name: "trivial",
  agent: {
    name: "trivial",
    runner: {
      backend: { kind: "command", command: ["bash", "-c", MODEL_LINE] },
      maxIterations: 3,
      worktree: { onSuccess: "keep" },
    },
  },
  registry: {
    entryStep: "initial.task",
    completionPatterns: { failed: {} },
    validators: { ok: { type: "command", command: "true", failurePattern: "failed" } },
    steps: { "initial.task": { c2: "initial", c3: "task", completionStep: "done.task" } },
    completionSteps: {
      "done.task": {
        c2: "retry",
        c3: "task",
        completionConditions: [{ validator: "ok" }],
        onFailure: { action: "retry", maxAttempts: 3 },
      },
    },
  },
  prompts: {
    "steps/initial/task/f_default.md": "Do it: {{task.title}}\n",
    "steps/retry/task/f_failed_failed.md": "Again.\n",
  },
};

export async function measureQueue() {
  const redis = await startRedis();
  if (typeof redis === "string") return { queueSkipped: redis };
  const repo = await makeFixtureRepo({
    files: { "README.md": "# trivial\n", ".gitignore": ".closer/\n" },
    agents: [agent, LABELLED_AGENT],
  });
  const scratch = mkdtempSync(join(tmpdir(), "closer-bench-queue-"));
  try {
    const directMs = await timeDirectRuns(repo.dir, scratch);
    const oneMs = await timeDrain(redis, repo.dir, join(scratch, "one"), 1);
    const fourMs = await timeDrain(redis, repo.dir, join(scratch, "four"), 4);
    const labelToFirstQueryMs = await timeLabelToFirstQuery(redis, repo.dir, scratch);
    const perJobMs = oneMs / JOBS;
    return {
      queueJobs: JOBS,
      queueOneWorkerMs: round(oneMs),
      queueFourWorkersMs: round(fourMs),
      queueThroughputRatio: round(oneMs / fourMs),
      queueDirectRunMs: round(directMs),
      queuePerJobMs: round(perJobMs),
      queueOverheadPerJobMs: round(perJobMs - directMs),
      queueLabelToFirstQueryMs: round(labelToFirstQueryMs),
    };
  } finally {
    await redis.stop();
    rmSync(scratch, { recursive: true, force: true });
    await repo.cleanup();
  }
}

/** The median wall time of `closer run trivial --task-file` in its own worktree, as a job runs. */
async function timeDirectRuns(repoDir, scratch) {
  const times = [];
  for (let index = 0; index < DIRECT_ROUNDS; index += 1) {
    const file = join(scratch, `direct-${index}.md`);
    writeFileSync(file, `# direct task ${index}\n`);
    const args = ["run", "trivial", "--task-file", file, "--branch", `closer/direct-${index}`];
    times.push(await timeProcess(closerBin(), [...args, "--sandbox", "off"], { cwd: repoDir }));
  }
  return median(times);
}

/** From enqueueing JOBS jobs to the last one completed, with `workers` workers already waiting. */
async function timeDrain(redis, repoDir, repoRoot, workers) {
  const connection = { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null };
  const queue = await openQueue(connection);
  const processes = [];
  try {
    await queue.obliterate({ force: true });
    for (let index = 0; index < workers; index += 1) {
      processes.push(await startWorker(redis.url, join(repoRoot, `worker-${index}`), repoDir));
    }
    const stamp = Date.now();
    const jobs = Array.from({ length: JOBS }, (_, index) => ({
      version: 1,
      repository: { cloneUrl: repoDir, owner: "bench", name: "trivial" },
      agent: "trivial",
      work: {
        kind: "task",
        task: { kind: "text", title: `task ${index} of ${stamp}`, body: `task ${index}` },
      },
      flags: { sandbox: "off" },
    }));
    const startedMs = performance.now();
    await enqueueJobs(queue, jobs, {});
    for (;;) {
      const counts = await queue.getJobCounts("completed", "failed");
      if (counts.failed > 0) {
        const [failed] = await queue.getJobs(["failed"], 0, 0);
        throw new Error(`a bench job failed: ${failed?.failedReason}`);
      }
      if (counts.completed === JOBS) return performance.now() - startedMs;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    for (const child of processes) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await queue.close();
  }
}

/** A worker whose clone is made before the clock starts; resolves once it waits for jobs. */
async function startWorker(url, repoDir, origin) {
  await timeProcess("git", ["clone", "--quiet", origin, join(repoDir, "bench", "trivial")]);
  const child = spawn(
    process.execPath,
    [closerBin(), "worker", "--redis", url, "--repo-dir", repoDir],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  await new Promise((resolve, reject) => {
    let text = "";
    child.stderr.on("data", (chunk) => {
      text += chunk;
      if (text.includes("waiting for jobs")) resolve(undefined);
    });
    child.once("exit", (code) => reject(new Error(`closer worker exited ${code}: ${text}`)));
  });
  return child;
}

/** A redis-server on a free loopback port, or why there is none. */
async function startRedis() {
  const port = await new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port: free } = server.address();
      server.close(() => resolve(free));
    });
  });
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  let gone;
  child.once("error", (error) => {
    gone = `redis-server could not be started (${error.message}): install it to measure the queue`;
  });
  child.once("exit", (code) => {
    gone ??= `redis-server exited with code ${code}`;
  });
  for (let tries = 0; tries < 200 && gone === undefined; tries += 1) {
    if (await answersPing(port)) {
      return {
        port,
        url: `redis://127.0.0.1:${port}`,
        stop: async () => {
          const exited = new Promise((resolve) => child.once("exit", resolve));
          child.kill("SIGKILL");
          await exited;
        },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGKILL");
  return gone ?? `redis-server did not answer on port ${port}`;
}

function answersPing(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("error", () => resolve(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (chunk) => {
      socket.destroy();
      resolve(String(chunk).startsWith("+PONG"));
    });
  });
}
