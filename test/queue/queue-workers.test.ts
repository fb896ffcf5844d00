import { describe, expect, it } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { startTestRedis } from "../support/redis-server.js";
import { closesOf, commentsOf } from "./support/delivery-counts.js";
import { waitFor } from "./support/queue-fixture.js";
import { useQueueHarness, workIssues } from "./support/queue-harness.js";

const started = await startTestRedis();
if (started.missing !== undefined) {
  process.stderr.write(`queue tests skipped: ${started.missing} (install redis-server)\n`);
}
const redis = started.redis;
const ISSUES = "/api/v3/repos/acme/widgets/issues";
/** The lock and stalled-check period of the workers in the crash tests (docs/queue.md#stalled-jobs). */
const CRASH_INTERVAL_MS = 3000;

describe.skipIf(redis === undefined)(
  `docs/queue.md the queue on a real redis-server${started.missing === undefined ? "" : ` (skipped: ${started.missing})`}`,
  () => {
    const harness = useQueueHarness(redis, workIssues(10));

    const enqueue = (agent: string, ...issues: number[]) =>
      cli(
        "enqueue",
        agent,
        ...issues.flatMap((issue) => ["--issue", String(issue)]),
        ...harness.jobFlags(),
        "--json",
      );

    const worker = (repoDir?: string, stalledIntervalMs?: number) =>
      harness.worker({ repoDir, stalledIntervalMs });
    const completedJob = (id: string) => harness.jobIn("completed", id);
    const commentCount = (issue: number) => commentsOf(harness.github, issue).length;

    it("enqueueing the same issue twice makes one job; once it finished, it may be queued again", async () => {
      const first = await enqueue("good", 9);
      const second = await enqueue("good", 9);
      expect(first.code, first.stderr).toBe(0);
      expect(second.code, second.stderr).toBe(0);
      const [firstJob] = JSON.parse(first.stdout) as { jobId: string; duplicate: boolean }[];
      const [secondJob] = JSON.parse(second.stdout) as { jobId: string; duplicate: boolean }[];
      expect(firstJob?.duplicate).toBe(false);
      expect(secondJob).toEqual({ ...firstJob, duplicate: true });
      expect(second.stderr).toContain("already queued or running");
      expect(await harness.queue.getJobCounts("waiting", "prioritized")).toMatchObject({
        waiting: 1,
        prioritized: 0,
      });

      await worker();
      const done = await completedJob(firstJob?.jobId ?? "");
      expect(done.returnvalue).toMatchObject({ success: true, status: "completed", issue: 9 });
      const again = await enqueue("good", 9);
      const [againJob] = JSON.parse(again.stdout) as { jobId: string; duplicate: boolean }[];
      expect(againJob?.duplicate).toBe(false);
      expect(againJob?.jobId).not.toBe(firstJob?.jobId);
    }, 120_000);

    it("two workers drain six jobs, and each issue is closed once with one comment", async () => {
      await worker();
      await worker();
      const result = await enqueue("good", 1, 2, 3, 4, 5, 6);
      expect(result.code, result.stderr).toBe(0);
      const jobs = JSON.parse(result.stdout) as { jobId: string }[];
      expect(jobs).toHaveLength(6);
      for (const job of jobs) await completedJob(job.jobId);

      for (const issue of [1, 2, 3, 4, 5, 6]) {
        expect(closesOf(harness.github, issue), `issue ${issue}`).toBe(1);
        expect(commentCount(issue), `issue ${issue}`).toBe(1);
        expect(harness.github.state.issues.find((entry) => entry.number === issue)?.state).toBe(
          "closed",
        );
      }
      const results = await Promise.all(
        jobs.map(async (job) => (await harness.queue.getJob(job.jobId))?.returnvalue),
      );
      expect(results.every((value) => value?.success === true)).toBe(true);
    }, 180_000);

    it("a worker killed with SIGKILL mid-run: its job completes on the other worker, with one comment and one close", async () => {
      const first = await worker(undefined, CRASH_INTERVAL_MS);
      const result = await enqueue("gate-kill", 7);
      const [{ jobId } = { jobId: "" }] = JSON.parse(result.stdout) as { jobId: string }[];
      const modelPid = await waitFor("the model's query to begin", () =>
        harness.fixture.startedPid("kill"),
      );
      const job = await harness.queue.getJob(jobId);
      const runId = job?.data.runId;
      expect(runId).toBeDefined();

      first.child.kill("SIGKILL");
      await first.exited;
      process.kill(modelPid, "SIGKILL");
      await harness.fixture.openGate("kill");
      const second = await worker(undefined, CRASH_INTERVAL_MS);

      const done = await completedJob(jobId);
      expect(done.returnvalue).toMatchObject({ success: true, status: "completed", runId });
      expect(done.data.startedBy).toBe(`${done.data.startedBy?.split(":")[0]}:${second.child.pid}`);
      expect(closesOf(harness.github, 7)).toBe(1);
      expect(commentCount(7)).toBe(1);
    }, 180_000);

    it("a worker killed with SIGKILL while its completion comment is on its way: the other worker, without its record, posts no second comment and closes once", async () => {
      // GitHub gets the comment, but the worker dies before it hears back or records it.
      const held = harness.github.holdReply(`POST ${ISSUES}/10/comments`);
      const first = await worker(undefined, CRASH_INTERVAL_MS);
      const result = await enqueue("good", 10);
      const [{ jobId } = { jobId: "" }] = JSON.parse(result.stdout) as { jobId: string }[];
      await held.arrived;
      first.child.kill("SIGKILL");
      await first.exited;
      held.release();
      expect(closesOf(harness.github, 10)).toBe(0);

      await worker(undefined, CRASH_INTERVAL_MS);
      const done = await completedJob(jobId);
      expect(done.returnvalue).toMatchObject({
        success: true,
        status: "completed",
        resumed: false,
      });
      expect(commentCount(10)).toBe(1);
      expect(
        harness.github.state.issues.find((issue) => issue.number === 10)?.comments,
      ).toHaveLength(1);
      expect(closesOf(harness.github, 10)).toBe(1);
    }, 180_000);

    it("SIGTERM: the run stops as on Ctrl-C, the job goes back, and another worker resumes it from its record", async () => {
      const repoDir = await harness.fixture.repoDir();
      const first = await worker(repoDir);
      const result = await enqueue("gate-term", 8);
      const [{ jobId } = { jobId: "" }] = JSON.parse(result.stdout) as { jobId: string }[];
      await waitFor("the model's query to begin", () => harness.fixture.startedPid("term"));
      const runId = (await harness.queue.getJob(jobId))?.data.runId;
      // The job's progress says where the run is while it goes.
      const progress = await waitFor("the job's progress to show iteration 1", async () => {
        const value = (await harness.queue.getJob(jobId))?.progress;
        return typeof value === "object" && (value as { iteration?: number }).iteration === 1
          ? value
          : undefined;
      });
      expect(progress).toMatchObject({ runId, iteration: 1, status: "working", costUsd: 0 });

      first.child.kill("SIGTERM");
      expect(await first.exited).toBe(143);
      expect(first.stderr()).toContain(`job ${jobId}: released`);
      expect(await (await harness.queue.getJob(jobId))?.getState()).toBe("waiting");
      expect(commentCount(8)).toBe(0);

      await harness.fixture.openGate("term");
      await worker(repoDir);
      const done = await completedJob(jobId);
      expect(done.returnvalue).toMatchObject({
        success: true,
        status: "completed",
        runId,
        resumed: true,
      });
      expect(closesOf(harness.github, 8)).toBe(1);
      expect(commentCount(8)).toBe(1);
    }, 180_000);
  },
);
