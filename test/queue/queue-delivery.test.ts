import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeAgent } from "../../src/testing/index.js";
import { cli } from "../cli/support/cli-repo.js";
import { startTestRedis } from "../support/redis-server.js";
import { type BareUpstream, makeBareUpstream } from "./support/bare-upstream.js";
import {
  closesOf,
  commentsOf,
  expectDeliveredOnce,
  pullRequestsOpened,
} from "./support/delivery-counts.js";
import { queueAgent, waitFor } from "./support/queue-fixture.js";
import { useQueueHarness, workIssues } from "./support/queue-harness.js";

const started = await startTestRedis();
if (started.missing !== undefined) {
  process.stderr.write(`queue delivery tests skipped: ${started.missing} (install redis-server)\n`);
}
const redis = started.redis;
const API = "/api/v3/repos/acme/widgets";
/** The lock and stalled-check period of the workers in the crash tests (docs/queue.md#stalled-jobs). */
const CRASH_INTERVAL_MS = 3000;

describe.skipIf(redis === undefined)(
  `docs/queue.md#delivery queued jobs deliver to the shared repository${started.missing === undefined ? "" : ` (skipped: ${started.missing})`}`,
  () => {
    const harness = useQueueHarness(redis, workIssues(11));
    let upstream: BareUpstream;

    beforeAll(async () => {
      const { origin } = harness.fixture;
      // onSuccess unset: a queued job pushes the branch and opens a pull request.
      await writeAgent(origin.dir, queueAgent("deliver", undefined, { onSuccess: undefined }));
      await writeAgent(origin.dir, queueAgent("deliver-kill", "kill", { onSuccess: undefined }));
      // onSuccess merge, said by the agent: the verified commit lands on origin's base.
      await writeAgent(origin.dir, queueAgent("deliver-base", undefined, { onSuccess: "merge" }));
      await origin.commitAll("delivering agents");
      upstream = await makeBareUpstream(origin.dir);
    });
    afterAll(async () => {
      await upstream?.cleanup();
    });

    const enqueue = (agent: string, ...issues: number[]) =>
      cli(
        "enqueue",
        agent,
        ...issues.flatMap((issue) => ["--issue", String(issue)]),
        ...harness.jobFlags(upstream.dir),
        "--json",
      );

    const worker = (stalledIntervalMs?: number) => harness.worker({ stalledIntervalMs });
    const completedJob = (id: string) => harness.jobIn("completed", id);

    it("two workers drain six jobs: each fix reaches the upstream once, as a pushed branch with one pull request, linked from one comment", async () => {
      const mainBefore = await upstream.commitOf("main");
      await worker();
      await worker();
      const result = await enqueue("deliver", 1, 2, 3, 4, 5, 6);
      expect(result.code, result.stderr).toBe(0);
      const jobs = JSON.parse(result.stdout) as { jobId: string }[];
      expect(jobs).toHaveLength(6);
      for (const job of jobs) {
        const done = await completedJob(job.jobId);
        expect(done.returnvalue).toMatchObject({ success: true, status: "completed" });
      }
      for (const issue of [1, 2, 3, 4, 5, 6])
        await expectDeliveredOnce(harness.github, upstream, issue);
      expect(await upstream.commitOf("main")).toBe(mainBefore);
    }, 180_000);

    it("a worker killed with SIGKILL while its completion comment is on its way: the other worker, without its record, opens no second pull request and comments once", async () => {
      const held = harness.github.holdReply(`POST ${API}/issues/7/comments`);
      const first = await worker(CRASH_INTERVAL_MS);
      const result = await enqueue("deliver", 7);
      const [{ jobId } = { jobId: "" }] = JSON.parse(result.stdout) as { jobId: string }[];
      await held.arrived;
      first.child.kill("SIGKILL");
      await first.exited;
      held.release();
      // The branch and its pull request were published before the comment.
      expect(pullRequestsOpened(harness.github, "closer/issue-7")).toBe(1);

      await worker(CRASH_INTERVAL_MS);
      const done = await completedJob(jobId);
      // The branch's push set the run's marker on the upstream: the model is not asked again.
      expect(done.returnvalue).toMatchObject({ success: true, status: "completed", resumed: true });
      expect(
        (await harness.fixture.queries()).filter((branch) => branch === "closer/issue-7"),
      ).toHaveLength(1);
      await expectDeliveredOnce(harness.github, upstream, 7);
      expect(
        harness.github.state.issues.find((issue) => issue.number === 7)?.comments,
      ).toHaveLength(1);
    }, 180_000);

    it("a worker killed with SIGKILL mid-run: its job completes on the other worker, with one push and one pull request", async () => {
      const first = await worker(CRASH_INTERVAL_MS);
      const result = await enqueue("deliver-kill", 8);
      const [{ jobId } = { jobId: "" }] = JSON.parse(result.stdout) as { jobId: string }[];
      const modelPid = await waitFor("the model's query to begin", () =>
        harness.fixture.startedPid("kill"),
      );
      first.child.kill("SIGKILL");
      await first.exited;
      process.kill(modelPid, "SIGKILL");
      expect(await upstream.commitOf("closer/issue-8")).toBe("");
      await harness.fixture.openGate("kill");
      await worker(CRASH_INTERVAL_MS);

      const done = await completedJob(jobId);
      expect(done.returnvalue).toMatchObject({ success: true, status: "completed" });
      await expectDeliveredOnce(harness.github, upstream, 8);
    }, 180_000);

    it("onSuccess merge on a worker: each verified commit lands on the upstream's main, fast-forward, once; the comment names it; no branch, no pull request", async () => {
      await worker();
      for (const issue of [9, 10]) {
        const result = await enqueue("deliver-base", issue);
        const [{ jobId } = { jobId: "" }] = JSON.parse(result.stdout) as { jobId: string }[];
        const done = await completedJob(jobId);
        expect(done.returnvalue).toMatchObject({ success: true, status: "completed" });
        const main = await upstream.commitOf("main");
        expect(await upstream.fileAt("main", "work.txt")).toBe(`done on closer/issue-${issue}`);
        const comments = commentsOf(harness.github, issue);
        expect(comments).toHaveLength(1);
        // The commit on main is the one the comment names: the verified commit, pushed as it is.
        expect(comments[0]).toContain(`Pushed to \`main\`: ${main}`);
        expect(closesOf(harness.github, issue)).toBe(1);
        expect(await upstream.commitOf(`closer/issue-${issue}`)).toBe("");
        expect(pullRequestsOpened(harness.github, `closer/issue-${issue}`)).toBe(0);
      }
    }, 180_000);

    it("onSuccess merge, a worker killed with SIGKILL right after its push to main: the other worker, with its own clone, asks the model nothing, pushes nothing, and comments and closes once", async () => {
      const mainBefore = await upstream.commitOf("main");
      // The first GitHub step after the push: held until the worker is gone.
      const held = harness.github.holdReply(`DELETE ${API}/issues/11/labels/ready`);
      const first = await worker(CRASH_INTERVAL_MS);
      const result = await enqueue("deliver-base", 11);
      const [{ jobId } = { jobId: "" }] = JSON.parse(result.stdout) as { jobId: string }[];
      await held.arrived;
      first.child.kill("SIGKILL");
      await first.exited;
      held.release();
      const delivered = await upstream.commitOf("main");
      expect(await upstream.commitsSince(mainBefore, "main")).toEqual([delivered]);
      expect(commentsOf(harness.github, 11)).toHaveLength(0);
      expect(closesOf(harness.github, 11)).toBe(0);

      await worker(CRASH_INTERVAL_MS);
      const done = await completedJob(jobId);
      const runId = String(done.data.runId);
      expect(done.returnvalue).toMatchObject({
        success: true,
        status: "completed",
        resumed: true,
        iterations: 0,
      });
      expect(String(done.returnvalue.reason)).toContain(`delivered by an earlier attempt`);
      expect(String(done.returnvalue.reason)).toContain(delivered);
      // The fix is on main once: the first attempt's commit, and no second.
      expect(await upstream.commitsSince(mainBefore, "main")).toEqual([delivered]);
      expect(await upstream.fileAt("main", "work.txt")).toBe("done on closer/issue-11");
      expect(await upstream.refOf(`refs/closer/delivered/${runId}`)).toBe(delivered);
      // One query, the first attempt's.
      expect(
        (await harness.fixture.queries()).filter((branch) => branch === "closer/issue-11"),
      ).toHaveLength(1);
      const comments = commentsOf(harness.github, 11);
      expect(comments).toHaveLength(1);
      expect(comments[0]).toContain(`Pushed to \`main\`: ${delivered}`);
      expect(comments[0]).toContain(`<!-- closer run ${runId} comment:completion -->`);
      expect(comments[0]).toContain("Verified and delivered by an earlier attempt of this run");
      expect(closesOf(harness.github, 11)).toBe(1);
      expect(harness.github.state.issues.find((issue) => issue.number === 11)).toMatchObject({
        state: "closed",
        labels: ["done"],
      });
    }, 180_000);
  },
);
