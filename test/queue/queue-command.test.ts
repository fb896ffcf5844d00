import { writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { JobWork } from "../../src/queue/index.js";
import { cli } from "../cli/support/cli-repo.js";
import { TOKEN } from "../run/support/issue-repo.js";
import { startTestRedis } from "../support/redis-server.js";
import { waitFor } from "./support/queue-fixture.js";
import { useQueueHarness } from "./support/queue-harness.js";

const HOW_TO_START = "docker run -p 6379:6379 redis";

const byIssue = (a: JobWork, b: JobWork) =>
  (a.kind === "issue" ? a.issue : 0) - (b.kind === "issue" ? b.issue : 0);

describe("docs/queue.md#redis without a Redis, the queue commands say how to start one", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it.each([["enqueue", "good", "--issue", "1"], ["worker"], ["queue"], ["queue", "remove", "1"]])(
    "closer %s with neither --redis nor CLOSER_REDIS_URL: exit 2",
    async (...args) => {
      vi.stubEnv("CLOSER_REDIS_URL", "");
      const result = await cli(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("the queue commands need a Redis server");
      expect(result.stderr).toContain(HOW_TO_START);
      expect(result.stderr).toContain("redis-server");
    },
  );

  it("closer queue with CLOSER_REDIS_URL naming a port nothing listens on: exit 2, naming where", async () => {
    // Port 1 (tcpmux) is closed on a test machine.
    vi.stubEnv("CLOSER_REDIS_URL", "redis://127.0.0.1:1");
    const result = await cli("queue");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cannot reach Redis at 127.0.0.1:1");
    expect(result.stderr).toContain(HOW_TO_START);
  });

  it("a --redis that is not a Redis URL: exit 2, naming the form", async () => {
    const result = await cli("queue", "--redis", "http://127.0.0.1:6379");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not a Redis URL: "http://127.0.0.1:6379"');
  });
});

const started = await startTestRedis();
if (started.missing !== undefined) {
  process.stderr.write(`queue command tests skipped: ${started.missing} (install redis-server)\n`);
}
const redis = started.redis;

describe.skipIf(redis === undefined)(
  `docs/queue.md#queue-command closer queue on a real redis-server${started.missing === undefined ? "" : ` (skipped: ${started.missing})`}`,
  () => {
    const harness = useQueueHarness(
      redis,
      [1, 2, 3].map((number) => ({ number, title: `Work ${number}`, labels: ["ready"] })),
    );

    const url = () => redis?.url ?? "";
    const enqueue = async (issue: number, ...more: string[]) => {
      const result = await cli(
        ...["enqueue", "good", "--issue", String(issue), ...harness.jobFlags(), "--json"],
        ...more,
      );
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { jobId: string }[])[0]?.jobId ?? "";
    };
    const worker = () => harness.worker();
    const stateOf = async (jobId: string) => (await harness.queue.getJob(jobId))?.getState();
    const rows = async () => {
      const result = await cli("queue", "--redis", url(), "--json");
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as Record<string, unknown>[];
    };

    it("lists a waiting job, then the completed job with its run's status, iteration and cost", async () => {
      const jobId = await enqueue(1, "--priority", "2", "--attempts", "2");
      expect(await rows()).toEqual([
        expect.objectContaining({
          id: jobId,
          state: "waiting",
          work: "acme/widgets#1",
          agent: "good",
        }),
      ]);
      expect((await harness.queue.getJob(jobId))?.opts).toMatchObject({ priority: 2, attempts: 2 });

      await worker();
      await waitFor("the job to complete", async () => (await stateOf(jobId)) === "completed");
      const [row] = await rows();
      expect(row).toMatchObject({
        id: jobId,
        state: "completed",
        runStatus: "completed",
        iteration: 1,
        costUsd: 0,
        attemptsMade: expect.any(Number),
      });
      expect(row?.runId).toMatch(/^\d{8}-\d{6}-/);
      const table = await cli("queue", "--redis", url());
      expect(table.stdout).toMatch(
        new RegExp(`^${jobId}\\s+completed\\s+acme/widgets#1\\s+good`, "m"),
      );
    }, 120_000);

    it("--label makes one job per open issue with the label; --task-file one job per task text", async () => {
      vi.stubEnv("GITHUB_TOKEN", TOKEN);
      vi.stubEnv("GITHUB_API_URL", harness.github.url);
      const base = [
        ...["--redis", url(), "--cwd", harness.fixture.origin.dir, "--repo", "acme/widgets"],
        ...["--clone-url", harness.fixture.origin.dir],
      ];
      const labelled = await cli("enqueue", "good", "--label", "ready", ...base, "--json");
      expect(labelled.code, labelled.stderr).toBe(0);
      const jobs = await harness.queue.getJobs(["waiting"]);
      // The open issues labelled ready (the test above closed #1).
      const open = harness.github.state.issues
        .filter((issue) => issue.state === "open" && issue.labels.includes("ready"))
        .map((issue) => issue.number);
      expect(open.length).toBeGreaterThan(1);
      expect(jobs.map((job) => job.data.work).sort(byIssue)).toEqual(
        open.map((issue) => ({ kind: "issue", issue })),
      );
      expect(jobs[0]?.data).toMatchObject({
        version: 1,
        agent: "good",
        repository: { owner: "acme", name: "widgets" },
      });

      const taskFile = `${await harness.fixture.repoDir()}.md`;
      await writeFile(taskFile, "# Tidy the widgets\n\nEvery widget in its place.\n");
      const first = await cli("enqueue", "good", "--task-file", taskFile, ...base, "--json");
      const second = await cli("enqueue", "good", "--task-file", taskFile, ...base, "--json");
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(second.stdout)).toEqual([expect.objectContaining({ duplicate: true })]);
      const [{ jobId = "" } = {}] = JSON.parse(first.stdout) as { jobId?: string }[];
      expect((await harness.queue.getJob(jobId))?.data.work).toMatchObject({
        kind: "task",
        task: { title: "Tidy the widgets" },
      });
    });

    it("the agent's own parameters travel in the job, typed; an unknown one is refused", async () => {
      const jobId = await enqueue(3, "--note", "handle with care");
      expect((await harness.queue.getJob(jobId))?.data.flags).toEqual({
        sandbox: "off",
        args: { note: "handle with care" },
      });
      await harness.queue.obliterate({ force: true });
      const unknown = await cli(
        "enqueue",
        "good",
        "--issue",
        "3",
        "--flavour",
        "x",
        "--redis",
        url(),
        "--cwd",
        harness.fixture.origin.dir,
      );
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("--flavour");
      expect(await harness.queue.count()).toBe(0);
    });

    it("two sources of work, or none, are a usage error before anything is queued", async () => {
      const none = await cli("enqueue", "good", "--redis", url());
      expect(none.code).toBe(2);
      expect(none.stderr).toContain("missing work");
      const both = await cli(
        "enqueue",
        "good",
        "--issue",
        "1",
        "--label",
        "ready",
        "--redis",
        url(),
      );
      expect(both.code).toBe(2);
      expect(both.stderr).toContain("--issue and --label/--project cannot be combined");
      expect(await harness.queue.count()).toBe(0);
    });

    it("retry puts a failed job back; remove deletes one that is not running; an unknown job is not_found", async () => {
      // A clone URL no worker can clone: the job fails.
      const failing = await enqueue(2, "--clone-url", `${harness.fixture.origin.dir}-missing`);
      await worker();
      await waitFor("the job to fail", async () => (await stateOf(failing)) === "failed");
      const [row] = await rows();
      expect(row).toMatchObject({ id: failing, state: "failed" });
      expect(String(row?.failedReason)).toContain("git clone failed");

      const refused = await cli("queue", "retry", "9999", "--redis", url());
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("no job 9999 on the queue");

      for (const active of harness.workers.splice(0)) {
        active.child.kill("SIGKILL");
        await active.exited;
      }
      // Once failed, the issue may be queued again; while that job waits, the old one is not retried.
      const requeued = await enqueue(2);
      const clash = await cli("queue", "retry", failing, "--redis", url());
      expect(clash.code).toBe(2);
      expect(clash.stderr).toContain(`acme/widgets#2 is queued or running as job ${requeued}`);
      await cli("queue", "remove", requeued, "--redis", url());

      const retried = await cli("queue", "retry", failing, "--redis", url());
      expect(retried.code, retried.stderr).toBe(0);
      expect(await stateOf(failing)).toBe("waiting");
      // The retried job holds the issue again: a new enqueue makes no second job.
      const duplicate = await cli(
        ...[
          "enqueue",
          "good",
          "--issue",
          "2",
          "--redis",
          url(),
          "--cwd",
          harness.fixture.origin.dir,
        ],
        ...["--repo", "acme/widgets", "--clone-url", harness.fixture.origin.dir, "--json"],
      );
      expect(JSON.parse(duplicate.stdout)).toEqual([
        expect.objectContaining({ jobId: failing, duplicate: true }),
      ]);
      const again = await cli("queue", "retry", failing, "--redis", url());
      expect(again.code).toBe(2);
      expect(again.stderr).toContain("it is waiting");

      const removed = await cli("queue", "remove", failing, "--redis", url());
      expect(removed.code, removed.stderr).toBe(0);
      expect(await harness.queue.getJob(failing)).toBeUndefined();
      expect(await rows()).toEqual([]);
    }, 120_000);
  },
);
