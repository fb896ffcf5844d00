import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { writeAgent } from "../../src/testing/index.js";
import { cli } from "../cli/support/cli-repo.js";
import { startRestartableRedis } from "../support/restartable-redis.js";
import { type BareUpstream, makeBareUpstream } from "./support/bare-upstream.js";
import { closesOf, expectDeliveredOnce } from "./support/delivery-counts.js";
import { queueAgent, type WorkerProcess, waitFor } from "./support/queue-fixture.js";
import { useQueueHarness, workIssues } from "./support/queue-harness.js";

const started = await startRestartableRedis();
if (started.missing !== undefined) {
  process.stderr.write(`queue restart tests skipped: ${started.missing} (install redis-server)\n`);
}
const redis = started.redis;
/** A short lock and stalled-check period, for the outage that outlasts it (docs/queue.md#stalled-jobs). */
const SHORT_INTERVAL_MS = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const alive = (worker: WorkerProcess) =>
  worker.child.exitCode === null && worker.child.signalCode === null;

describe.skipIf(redis === undefined)(
  `docs/queue.md#redis-restart the queue's guarantees across a Redis restart and a stopped worker${started.missing === undefined ? "" : ` (skipped: ${started.missing})`}`,
  () => {
    const harness = useQueueHarness(redis, workIssues(19));
    let upstream: BareUpstream;

    beforeAll(async () => {
      const { origin } = harness.fixture;
      // Delivering agents (a pushed branch and a pull request) whose model waits at a gate.
      for (const gate of ["restart", "outage", "overlap", "sigterm"]) {
        await writeAgent(origin.dir, queueAgent(`${gate}-gated`, gate, { onSuccess: undefined }));
      }
      await origin.commitAll("gated delivering agents");
      upstream = await makeBareUpstream(origin.dir);
    });
    afterAll(async () => {
      await upstream?.cleanup();
    });
    // A test that failed with Redis stopped leaves it started again, for the next one.
    afterEach(async () => {
      if (redis?.running() === false) await redis.start();
    });

    const enqueue = async (agent: string, issues: readonly number[]) => {
      const result = await cli(
        "enqueue",
        agent,
        ...issues.flatMap((issue) => ["--issue", String(issue)]),
        ...harness.jobFlags(upstream.dir),
        "--json",
      );
      expect(result.code, result.stderr).toBe(0);
      const jobs = JSON.parse(result.stdout) as { jobId: string }[];
      expect(jobs).toHaveLength(issues.length);
      return jobs.map((job) => job.jobId);
    };

    const worker = (stalledIntervalMs?: number) => harness.worker({ stalledIntervalMs });

    /** Resolves once `count` jobs are active and each one's run is in its first iteration. */
    const runsUnderWay = (count: number) =>
      waitFor(`${count} runs to be under way`, async () => {
        const active = await harness.queue.getJobs(["active"]);
        const working = active.filter(
          (job) => (job.progress as { status?: string } | undefined)?.status === "working",
        );
        return working.length === count ? working.map((job) => job.id) : undefined;
      });

    /** Every job completed. */
    const allCompleted = async (jobIds: readonly string[]) => {
      for (const id of jobIds) {
        const done = await harness.jobIn("completed", id, 180_000);
        expect(done.returnvalue, `job ${id}`).toMatchObject({
          success: true,
          status: "completed",
        });
      }
    };

    /** The task branches of `issues` on the upstream. */
    const branchesOf = async (issues: readonly number[]) =>
      (await upstream.branches()).filter((branch) =>
        issues.some((issue) => branch === `closer/issue-${issue}`),
      );

    const closedSoFar = (issues: readonly number[]) =>
      issues.filter((issue) => closesOf(harness.github, issue) > 0).length;

    it("Redis stopped with SIGTERM and started again mid-drain: the workers reconnect, every job completes, each fix reaches the upstream once with one pull request, one comment and one close", async () => {
      const issues = [1, 2, 3, 4, 5, 6];
      const first = await worker();
      const second = await worker();
      const jobIds = await enqueue("restart-gated", issues);
      await runsUnderWay(2);

      await redis?.halt();
      for (const one of [first, second]) {
        await waitFor("the worker to say Redis is unreachable", async () =>
          one.stderr().includes("is unreachable"),
        );
      }
      // The two runs go on without Redis: they deliver, comment and close.
      await harness.fixture.openGate("restart");
      await waitFor("two runs to close their issues while Redis is down", async () =>
        closedSoFar(issues) === 2 ? true : undefined,
      );
      expect(await branchesOf(issues)).toHaveLength(2);
      await redis?.start();

      await allCompleted(jobIds);
      for (const issue of issues) await expectDeliveredOnce(harness.github, upstream, issue);
      for (const one of [first, second]) {
        expect(alive(one), one.stderr()).toBe(true);
        expect(one.stderr()).toContain("reconnecting");
        expect(one.stderr()).toContain("answers again");
      }
    }, 300_000);

    it("Redis down for longer than the stalled interval: the running jobs lose their locks and stall, their workers leave them to the next attempt, and every job completes with each fix on the upstream once", async () => {
      const issues = [7, 8, 9, 10, 11, 12];
      const first = await worker(SHORT_INTERVAL_MS);
      const second = await worker(SHORT_INTERVAL_MS);
      const jobIds = await enqueue("outage-gated", issues);
      await runsUnderWay(2);

      await redis?.halt();
      // Longer than the locks last: when Redis is back, the two running jobs have none.
      await sleep(SHORT_INTERVAL_MS * 3);
      await redis?.start();
      await harness.fixture.openGate("outage");

      await allCompleted(jobIds);
      for (const issue of issues) await expectDeliveredOnce(harness.github, upstream, issue);
      for (const one of [first, second]) {
        expect(alive(one), one.stderr()).toBe(true);
        // Its job stalled under it: it recorded no end on a job no longer its own.
        expect(one.stderr()).toContain("its lock expired while Redis was unreachable");
        expect(one.stderr()).not.toContain("Missing lock");
      }
    }, 300_000);

    it("Redis down for longer than the stalled interval while another worker is idle: the run that lost its lock stops, and one run of the issue asks the model and delivers", async () => {
      const workersNow = [await worker(SHORT_INTERVAL_MS), await worker(SHORT_INTERVAL_MS)];
      const [jobId = ""] = await enqueue("overlap-gated", [19]);
      await runsUnderWay(1);
      const startedBy = String((await harness.queue.getJob(jobId))?.data.startedBy);
      const holder = workersNow.find((one) => startedBy.endsWith(`:${one.child.pid}`));
      expect(holder, startedBy).toBeDefined();

      await redis?.halt();
      await sleep(SHORT_INTERVAL_MS * 3);
      await redis?.start();
      // Its lock gone, the job is another attempt's: the holder's run stops at the gate.
      await waitFor("the holder to let the job go", async () =>
        holder?.stderr().includes(`job ${jobId}: its lock expired`),
      );
      await runsUnderWay(1);
      await harness.fixture.openGate("overlap");

      await allCompleted([jobId]);
      await expectDeliveredOnce(harness.github, upstream, 19);
      // The stopped run's model never answered: one query, one commit, one delivery.
      expect(
        (await harness.fixture.queries()).filter((branch) => branch === "closer/issue-19"),
      ).toHaveLength(1);
      for (const one of workersNow) expect(alive(one), one.stderr()).toBe(true);
    }, 300_000);

    it("a worker stopped with SIGTERM mid-drain: its job goes back to waiting, another worker with its own clone takes it, and each fix still reaches the upstream once", async () => {
      const issues = [13, 14, 15, 16, 17, 18];
      const first = await worker();
      const second = await worker();
      const jobIds = await enqueue("sigterm-gated", issues);
      await runsUnderWay(2);
      first.child.kill("SIGTERM");
      expect(await first.exited).toBe(143);
      const released = /job (\d+): released/.exec(first.stderr())?.[1] ?? "";
      expect(released, first.stderr()).not.toBe("");
      // Released, not failed: it waits, with its run id, for the next worker.
      expect(await harness.queue.getJobState(released)).toBe("waiting");
      expect((await harness.queue.getJob(released))?.data.runId).toBeDefined();
      expect(await branchesOf(issues)).toEqual([]);

      await harness.fixture.openGate("sigterm");
      await worker();
      await allCompleted(jobIds);
      for (const issue of issues) await expectDeliveredOnce(harness.github, upstream, issue);
      expect(alive(second), second.stderr()).toBe(true);
    }, 300_000);
  },
);
