import { createHmac } from "node:crypto";
import { Queue } from "bullmq";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { WATCH_QUEUE_NAME, type WatchTickData } from "../../src/queue/index.js";
import { cli } from "../cli/support/cli-repo.js";
import { startTestRedis } from "../support/redis-server.js";
import { type CloserProcess, startCloser } from "./support/closer-process.js";
import { waitFor } from "./support/queue-fixture.js";
import { useQueueHarness } from "./support/queue-harness.js";

const started = await startTestRedis();
if (started.missing !== undefined) {
  process.stderr.write(
    `watch and serve tests skipped: ${started.missing} (install redis-server)\n`,
  );
}
const redis = started.redis;
const LIST = "GET /api/v3/repos/acme/widgets/issues?";
const SECRET = "a webhook secret";

describe.skipIf(redis === undefined)(
  `docs/queue.md#watch and #serve on a real redis-server${started.missing === undefined ? "" : ` (skipped: ${started.missing})`}`,
  () => {
    const harness = useQueueHarness(redis, [
      { number: 1, title: "Labelled from the start", labels: ["ready"] },
      { number: 2, title: "Labelled later", labels: [] },
      { number: 3, title: "Another label", labels: ["later"] },
    ]);
    const processes: CloserProcess[] = [];
    let ticks: Queue<WatchTickData>;
    beforeAll(() => {
      ticks = new Queue<WatchTickData>(WATCH_QUEUE_NAME, {
        connection: { host: "127.0.0.1", port: redis?.port ?? 0, maxRetriesPerRequest: null },
      });
    });
    afterEach(async () => {
      for (const running of processes.splice(0)) {
        running.child.kill("SIGKILL");
        await running.exited;
      }
      for (const scheduler of await ticks.getJobSchedulers()) {
        await ticks.removeJobScheduler(scheduler.key);
      }
      await ticks.obliterate({ force: true });
      await (await ticks.client).del(`${ticks.qualifiedName}:seen:acme/widgets label ready`);
      for (const issue of harness.github.state.issues) {
        issue.labels = issue.number === 1 ? ["ready"] : issue.number === 3 ? ["later"] : [];
      }
    });
    afterAll(async () => {
      await ticks?.close();
    });

    const jobTemplate = () => harness.jobFlags();
    const start = (...args: string[]) => {
      const running = startCloser(args, {
        github: harness.github,
        home: harness.fixture.home,
        env: { CLOSER_WEBHOOK_SECRET: SECRET },
      });
      processes.push(running);
      return running;
    };
    const watch = (every: string, ...more: string[]) =>
      start("watch", "good", "--label", "ready", "--every", every, ...jobTemplate(), ...more);
    /** The jobs of the runs' queue for each issue, whatever their state. */
    const jobsByIssue = async () => {
      const jobs = await harness.queue.getJobs(
        ["waiting", "prioritized", "delayed", "active", "completed", "failed"],
        0,
        -1,
      );
      const counts = new Map<number, number>();
      for (const job of jobs) {
        if (job?.data.work.kind === "issue") {
          counts.set(job.data.work.issue, (counts.get(job.data.work.issue) ?? 0) + 1);
        }
      }
      return Object.fromEntries(counts);
    };
    const listings = () =>
      harness.github.requests.filter((request) =>
        `${request.method} ${request.path}`.startsWith(LIST),
      ).length;
    const afterListings = async (more: number) => {
      const target = listings() + more;
      await waitFor(`${more} more listings`, async () => listings() >= target);
    };
    const label = (issue: number, name: string) =>
      harness.github.state.issues.find((entry) => entry.number === issue)?.labels.push(name);
    const unlabel = (issue: number) => {
      const found = harness.github.state.issues.find((entry) => entry.number === issue);
      if (found !== undefined) found.labels = [];
    };

    it("closer watch queues each newly labelled issue within an interval, never twice across ticks and two watchers", async () => {
      const first = watch("1s", "--note", "handle with care");
      await waitFor("issue 1 to be queued", async () => (await jobsByIssue())[1] === 1);
      expect(first.stderr()).toContain('schedule "acme/widgets label ready" every 1 s');
      // The agent's own parameters travel in the tick's job template to each job.
      const [queued] = await harness.queue.getJobs(["waiting"]);
      expect(queued?.data.flags).toEqual({ sandbox: "off", args: { note: "handle with care" } });

      label(2, "ready");
      const labelledAt = Date.now();
      await waitFor("issue 2 to be queued", async () => (await jobsByIssue())[2] === 1, 10_000);
      expect(Date.now() - labelledAt).toBeLessThan(4000);

      const second = watch("1s");
      await waitFor("the second watcher to start", async () =>
        second.stderr().includes("every 1 s"),
      );
      // The queued jobs finish (here: are removed), so their deduplication ids are free:
      // the schedule itself remembers what it queued while the label stays.
      await harness.queue.obliterate({ force: true });
      await afterListings(4);
      expect(await jobsByIssue()).toEqual({});
      expect(await ticks.getJobSchedulersCount()).toBe(1);

      // The label taken off and put back: the issue is new again, and queued once.
      unlabel(1);
      await afterListings(2);
      label(1, "ready");
      await waitFor(
        "issue 1 to be queued again",
        async () => (await jobsByIssue())[1] === 1,
        10_000,
      );
      await afterListings(3);
      expect(await jobsByIssue()).toEqual({ 1: 1 });
      expect(`${first.stderr()}${second.stderr()}`.match(/acme\/widgets#1 queued/g)).toHaveLength(
        2,
      );
      expect(`${first.stderr()}${second.stderr()}`.match(/acme\/widgets#2 queued/g)).toHaveLength(
        1,
      );
    }, 120_000);

    it("a restarted watcher upserts the one schedule; --list shows it and --stop removes it", async () => {
      const first = watch("1s");
      await waitFor("issue 1 to be queued", async () => (await jobsByIssue())[1] === 1);
      first.child.kill("SIGTERM");
      expect(await first.exited).toBe(143);

      const again = watch("2s");
      await waitFor("the restarted watcher to start", async () =>
        again.stderr().includes("every 2 s"),
      );
      await afterListings(2);
      expect(await ticks.getJobSchedulersCount()).toBe(1);
      expect(await jobsByIssue()).toEqual({ 1: 1 });

      const list = await cli("watch", "--list", "--json", "--redis", redis?.url ?? "");
      expect(list.code, list.stderr).toBe(0);
      expect(JSON.parse(list.stdout)).toMatchObject([
        { id: "acme/widgets label ready", everyMs: 2000, agent: "good" },
      ]);
      const typo = await cli("watch", "--list", "--jsno", "--redis", redis?.url ?? "");
      expect(typo.code).toBe(2);
      expect(typo.stderr).toContain("unknown option '--jsno' (did you mean --json?)");
      const stop = await cli("watch", "--stop", "--label", "ready", ...jobTemplate());
      expect(stop.code, stop.stderr).toBe(0);
      expect(await ticks.getJobSchedulersCount()).toBe(0);
      const missing = await cli("watch", "--stop", "--label", "ready", ...jobTemplate());
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("closer watch --list");
    }, 120_000);

    describe("closer serve", () => {
      const sign = (body: string, secret = SECRET) =>
        `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
      const labelled = (issue: number, name = "ready") =>
        JSON.stringify({
          action: "labeled",
          label: { name },
          issue: { number: issue, state: "open", labels: [{ name }] },
          repository: { full_name: "acme/widgets" },
        });
      const serve = async (...more: string[]) => {
        const server = start(
          ...["serve", "--agent", "good", "--label", "ready", "--port", "0"],
          ...jobTemplate(),
          ...more,
        );
        const url = await waitFor(
          "closer serve to listen",
          async () => /listening on (http:\S+)/.exec(server.stderr())?.[1],
        );
        return { server, url };
      };
      const deliver = (url: string, body: string, signature: string, event = "issues") =>
        fetch(`${url}/webhook`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-github-event": event,
            "x-github-delivery": "d-1",
            "x-hub-signature-256": signature,
          },
          body,
        });

      it("refuses a bad signature with 401, queues a labelled issue once, and ignores the rest", async () => {
        const { server, url } = await serve("--note=from the webhook");
        expect(server.stderr()).toContain(`${url}/webhook`);
        expect(server.stderr()).toContain("application/json");

        const forged = await deliver(url, labelled(2), sign(labelled(2), "another secret"));
        expect(forged.status).toBe(401);
        const unsigned = await fetch(`${url}/webhook`, { method: "POST", body: labelled(2) });
        expect(unsigned.status).toBe(401);
        expect(await jobsByIssue()).toEqual({});

        const good = await deliver(url, labelled(2), sign(labelled(2)));
        expect(good.status).toBe(202);
        expect(await good.json()).toMatchObject({ issue: 2, duplicate: false });
        const redelivered = await deliver(url, labelled(2), sign(labelled(2)));
        expect(redelivered.status).toBe(200);
        expect(await redelivered.json()).toMatchObject({ issue: 2, duplicate: true });
        expect(await jobsByIssue()).toEqual({ 2: 1 });
        const [queued] = await harness.queue.getJobs(["waiting"]);
        expect(queued?.data.flags.args).toEqual({ note: "from the webhook" });

        const other = await deliver(url, labelled(3, "later"), sign(labelled(3, "later")));
        expect(other.status).toBe(200);
        const ping = await deliver(url, "{}", sign("{}"), "ping");
        expect(ping.status).toBe(200);
        expect(await jobsByIssue()).toEqual({ 2: 1 });
        expect(server.stderr()).toContain("refused: the signature does not match");
        expect(server.stderr()).toContain("ignored: acme/widgets#3 labelled later, not ready");

        const page = await fetch(`${url}/`);
        expect(page.status).toBe(200);
        expect(page.headers.get("content-type")).toContain("text/html");
        expect((await fetch(`${url}/webhook`)).status).toBe(405);

        server.child.kill("SIGTERM");
        expect(await server.exited).toBe(143);
      }, 60_000);

      it("refuses an agent parameter flag it does not know, naming the agent's own", async () => {
        vi.stubEnv("CLOSER_WEBHOOK_SECRET", SECRET);
        const result = await cli(
          ...["serve", "--agent", "good", "--label", "ready", "--notes", "x"],
          ...jobTemplate(),
        );
        expect(result.code).toBe(2);
        expect(result.stderr).toContain("unknown option '--notes' (did you mean --note?)");
        expect(result.stderr).toContain("see closer serve --help");
      });

      it("stops at once without the webhook's secret, naming the fix", async () => {
        vi.stubEnv("CLOSER_WEBHOOK_SECRET", "");
        const result = await cli("serve", "--agent", "good", "--label", "ready", ...jobTemplate());
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(
          "the webhook's secret is missing: neither CLOSER_WEBHOOK_SECRET nor --secret-file FILE is given",
        );
      });
    });
  },
);
