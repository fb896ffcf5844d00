import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writeAgent } from "../../src/testing/index.js";
import { cli } from "../cli/support/cli-repo.js";
import { makeIssueAgent } from "../run/support/issue-repo.js";
import { startTestRedis } from "../support/redis-server.js";
import { WORK_EXISTS, waitFor } from "./support/queue-fixture.js";
import { useQueueHarness, workIssues } from "./support/queue-harness.js";

const started = await startTestRedis();
if (started.missing !== undefined) {
  process.stderr.write(`job truth tests skipped: ${started.missing} (install redis-server)\n`);
}
const redis = started.redis;
/** The lock and stalled-check period of the workers in the crash test (docs/queue.md#stalled-jobs). */
const CRASH_INTERVAL_MS = 3000;

/**
 * The model of the `lazy-*` agents: notes its query in `<gates>/<agent>.queries`, then declares
 * done without writing work.txt, so every check of work-exists fails.
 */
function lazyProgram(gates: string): string {
  return `import { appendFileSync } from "node:fs";
import { join } from "node:path";
for await (const _chunk of process.stdin) {}
appendFileSync(join(${JSON.stringify(gates)}, process.argv[2] + ".queries"), "query\\n");
console.log(JSON.stringify({
  status: "completed",
  summary: "claims it is done",
  next_action: { action: "complete", reason: "done" },
}));
`;
}

/** An agent whose model never does the work: it ends max_iterations or retries_exhausted. */
function lazyAgent(name: string, maxIterations: number) {
  return makeIssueAgent({
    name,
    runner: {
      backend: { kind: "command", command: ["node", "lazy-program.mjs", name] },
      maxIterations,
    },
    parameters: { issue: { type: "number", description: "the issue" } },
    worktree: { onSuccess: "keep" },
    ...WORK_EXISTS,
  });
}

describe.skipIf(redis === undefined)(
  `docs/queue.md#job-ends a job's state follows its run's end, on a real redis-server${started.missing === undefined ? "" : ` (skipped: ${started.missing})`}`,
  () => {
    const harness = useQueueHarness(redis, workIssues(3, []));
    const url = () => redis?.url ?? "";

    beforeAll(async () => {
      const { origin, gates } = harness.fixture;
      // One iteration: out of iterations after one failed check. Five: out of retries after two.
      await writeAgent(origin.dir, lazyAgent("lazy-cap", 1));
      await writeAgent(origin.dir, lazyAgent("lazy-retry", 5));
      await writeFile(join(origin.dir, "lazy-program.mjs"), lazyProgram(gates));
      await origin.commitAll("lazy agents");
    });

    const enqueue = async (agent: string, issue: number, ...more: string[]) => {
      const result = await cli(
        ...["enqueue", agent, "--issue", String(issue)],
        ...harness.jobFlags(),
        ...["--json", ...more],
      );
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { jobId: string }[])[0]?.jobId ?? "";
    };
    const worker = (repoDir?: string, stalledIntervalMs?: number) =>
      harness.worker({ repoDir, stalledIntervalMs });
    const jobIn = harness.jobIn;
    const queries = async (agent: string) => {
      const file = join(harness.fixture.gates, `${agent}.queries`);
      const text = await readFile(file, "utf8").catch(() => "");
      return text.split("\n").filter((line) => line !== "").length;
    };

    it("a run out of iterations fails its job: status and reason in failedReason, no second attempt, no more queries", async () => {
      const jobId = await enqueue("lazy-cap", 1, "--attempts", "3");
      await worker();
      const failed = await jobIn("failed", jobId);
      const runId = failed.data.runId ?? "";
      expect(failed.failedReason).toContain(`run ${runId} ended max_iterations: `);
      expect(failed.failedReason).toContain("work-exists failed (work-missing)");
      expect(failed.failedReason).toContain(`report: closer report ${runId} --runs-dir `);
      expect(failed.data.result).toMatchObject({
        success: false,
        status: "max_iterations",
        iterations: 1,
        runId,
      });
      // The attempts left are not spent on it: a while later it is still failed, with one query.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const later = await harness.queue.getJob(jobId);
      expect(await later?.getState()).toBe("failed");
      expect(later?.attemptsMade).toBe(1);
      expect(await queries("lazy-cap")).toBe(1);

      const listed = await cli("queue", "--redis", url(), "--json");
      expect(JSON.parse(listed.stdout)).toEqual([
        expect.objectContaining({
          id: jobId,
          state: "failed",
          runId,
          runStatus: "max_iterations",
          iteration: 1,
          costUsd: 0,
        }),
      ]);
    }, 120_000);

    it("closer queue retry of a job whose run ended retries_exhausted queues a new run of the issue; the ended run's record is left as it is", async () => {
      const jobId = await enqueue("lazy-retry", 2, "--attempts", "2");
      await worker();
      const failed = await jobIn("failed", jobId);
      const runId = failed.data.runId ?? "";
      expect(failed.failedReason).toContain(`run ${runId} ended retries_exhausted: `);
      expect(failed.attemptsMade).toBe(1);
      expect(await queries("lazy-retry")).toBe(2);
      const runJson = join(String(failed.data.result?.runDir), "run.json");
      const recorded = await readFile(runJson, "utf8");

      const retried = await cli("queue", "retry", jobId, "--redis", url());
      expect(retried.code, retried.stderr).toBe(0);
      const said = retried.stderr.match(
        new RegExp(
          `^job ${jobId}'s run ${runId} ended retries_exhausted; a new run of acme/widgets#2 is queued as job (\\d+)`,
        ),
      );
      expect(said, retried.stderr).not.toBeNull();
      const newJobId = said?.[1] ?? "";
      expect(newJobId).not.toBe(jobId);
      expect((await harness.queue.getJob(newJobId))?.opts.attempts).toBe(2);

      const second = await jobIn("failed", newJobId);
      expect(second.data.runId).toBeDefined();
      expect(second.data.runId).not.toBe(runId);
      expect(second.failedReason).toContain(`run ${second.data.runId} ended retries_exhausted`);
      expect(await queries("lazy-retry")).toBe(4);
      expect(await readFile(runJson, "utf8")).toBe(recorded);
      const old = await harness.queue.getJob(jobId);
      expect(await old?.getState()).toBe("failed");
      expect(old?.data.runId).toBe(runId);
    }, 180_000);

    it("a worker killed with SIGKILL mid-run: the stalled job is taken up again and its run resumed from its record", async () => {
      const repoDir = await harness.fixture.repoDir();
      const first = await worker(repoDir, CRASH_INTERVAL_MS);
      const jobId = await enqueue("gate-kill", 3);
      const modelPid = await waitFor("the model's query to begin", () =>
        harness.fixture.startedPid("kill"),
      );
      const runId = (await harness.queue.getJob(jobId))?.data.runId;
      expect(runId).toBeDefined();

      first.child.kill("SIGKILL");
      await first.exited;
      process.kill(modelPid, "SIGKILL");
      await harness.fixture.openGate("kill");
      await worker(repoDir, CRASH_INTERVAL_MS);

      const done = await jobIn("completed", jobId);
      expect(done.returnvalue).toMatchObject({
        success: true,
        status: "completed",
        runId,
        resumed: true,
      });
    }, 180_000);
  },
);
