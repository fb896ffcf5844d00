import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, describe, expect, it } from "vitest";
import type { QueueJobData } from "../../src/queue/index.js";
import { queuePageHandler } from "../../src/queue/queue-page.js";
import { saveScreenshot, startChromium, TEST_ARTIFACTS } from "../observe/support/chromium.js";
import { startTestRedis } from "../support/redis-server.js";
import { waitFor } from "./support/queue-fixture.js";
import { useQueueHarness } from "./support/queue-harness.js";

const started = await startTestRedis();
const chromium = started.missing === undefined ? await startChromium() : undefined;
const skipped =
  started.missing !== undefined
    ? `${started.missing} (install redis-server)`
    : chromium !== undefined && "why" in chromium
      ? chromium.why
      : undefined;
if (skipped !== undefined) {
  process.stderr.write(`queue page tests skipped: ${skipped}\n`);
  await started.redis?.stop();
}
const redis = skipped === undefined ? started.redis : undefined;
const browser: Browser | undefined =
  chromium !== undefined && "browser" in chromium ? chromium.browser : undefined;

const MARKUP = "<script>window.__pwned = 1</script>";

/** The page at `url`, with every console error and page error it logs. */
async function openPage(url: string) {
  const page = await (browser as Browser).newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => {
    errors.push(String(error));
  });
  await page.goto(url, { waitUntil: "load" });
  return { page, errors };
}

const shown = (page: Page) =>
  page.evaluate(`(() => ({
    rows: [...document.querySelectorAll("#jobs tr")].map((row) => [row.getAttribute("data-job"), row.getAttribute("data-state")]),
    text: document.body.innerText,
    links: [...document.querySelectorAll("#jobs a")].map((link) => link.getAttribute("href")),
    pwned: typeof window.__pwned,
    scrollWidth: document.documentElement.scrollWidth,
  }))()`) as Promise<{
    rows: [string, string][];
    text: string;
    links: string[];
    pwned: string;
    scrollWidth: number;
  }>;

describe.skipIf(redis === undefined)(
  `docs/queue.md#queue-page the queue page in headless Chromium${skipped === undefined ? "" : ` (skipped: ${skipped})`}`,
  () => {
    const harness = useQueueHarness(redis, [
      { number: 1, title: "Work 1", labels: ["ready"] },
      { number: 2, title: "Work 2", labels: ["ready"] },
    ]);
    let server: Server | undefined;
    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) =>
        server === undefined ? resolve(undefined) : server.close(resolve),
      );
    });

    const jobData = (work: QueueJobData["work"], cloneUrl: string): QueueJobData => ({
      version: 1,
      repository: { cloneUrl, owner: "acme", name: "widgets" },
      agent: "good",
      work,
      flags: { sandbox: "off" },
    });

    it("shows the jobs, their states and totals, links each report here, says where one elsewhere is, and refreshes", async () => {
      const { queue, fixture } = harness;
      const worker = await harness.worker();
      const done = await queue.add("run", jobData({ kind: "issue", issue: 1 }, fixture.origin.dir));
      await waitFor(
        "the first job to complete",
        async () => (await done.getState()) === "completed",
      );
      // An agent the repository does not have: the job fails at once.
      const failed = await queue.add("run", {
        ...jobData({ kind: "issue", issue: 2 }, fixture.origin.dir),
        agent: "no-such-agent",
      });
      await waitFor("the second job to fail", async () => (await failed.getState()) === "failed");
      worker.child.kill("SIGKILL");
      await worker.exited;
      const waiting = await queue.add(
        "run",
        jobData(
          { kind: "task", task: { kind: "text", title: `${MARKUP} tidy`, body: "tidy up" } },
          fixture.origin.dir,
        ),
      );
      const elsewhere = await queue.add("run", jobData({ kind: "issue", issue: 9 }, "/x"));
      await elsewhere.updateData({ ...elsewhere.data, runId: "r-away", startedBy: "build-9:123" });
      await elsewhere.updateProgress({
        runId: "r-away",
        iteration: 2,
        status: "working",
        costUsd: 0.5,
        worker: "build-9:123",
        reportPath: "/nowhere/on/this/machine/r-away/report.html",
      });

      const handle = queuePageHandler(queue);
      server = createServer((request, response) => {
        void handle(request, response).then((answered) => {
          if (!answered) response.writeHead(404).end("not here\n");
        });
      });
      await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

      const json = (await (await fetch(`${base}/jobs.json`)).json()) as Record<string, unknown>[];
      expect(json.map((row) => [row.id, row.state])).toEqual(
        expect.arrayContaining([
          [done.id, "completed"],
          [failed.id, "failed"],
          [waiting.id, "waiting"],
        ]),
      );
      expect(json.find((row) => row.id === done.id)).toMatchObject({
        runStatus: "completed",
        reportUrl: `/runs/${done.id}/report`,
        reportPath: expect.stringMatching(/\/report\.html$/),
      });
      expect((await fetch(`${base}/elsewhere`)).status).toBe(404);

      const { page, errors } = await openPage(`${base}/`);
      const first = await shown(page);
      expect(first.rows).toEqual(
        expect.arrayContaining([
          [done.id, "completed"],
          [failed.id, "failed"],
          [waiting.id, "waiting"],
          [elsewhere.id, "waiting"],
        ]),
      );
      expect(first.text).toContain(`${MARKUP} tidy`);
      expect(first.pwned).toBe("undefined");
      expect(first.text).toMatch(/0 running, 2 waiting, 1 done, 1 failed, total cost \$0\.50/);
      expect(first.text).toContain(`job ${failed.id} failed:`);
      expect(first.text).toContain("on build-9 at /nowhere/on/this/machine/r-away/report.html");
      expect(first.links).toEqual([`/runs/${done.id}/report`]);
      expect(first.scrollWidth).toBeLessThanOrEqual(1280);

      // A job queued after the page loaded shows up at its next refresh.
      const later = await queue.add("run", jobData({ kind: "issue", issue: 5 }, "/x"));
      await page.waitForSelector(`tr[data-job="${later.id}"]`, { timeout: 15_000 });
      const refreshed = await shown(page);
      expect(refreshed.text).toContain("acme/widgets#5");
      expect(refreshed.text).toContain(`${MARKUP} tidy`);
      expect(refreshed.pwned).toBe("undefined");
      expect(refreshed.scrollWidth).toBeLessThanOrEqual(1280);
      await saveScreenshot(page, join(TEST_ARTIFACTS, "queue-page.png"));

      // The report link opens the run's report, made from its record on this machine.
      await Promise.all([
        page.waitForNavigation(),
        page.click(`a[href="/runs/${done.id}/report"]`),
      ]);
      const finished = await queue.getJob(done.id ?? "");
      const runId = finished?.data.runId;
      // The worker recorded where the run's report is, in the job's progress.
      expect(finished?.progress).toMatchObject({
        reportPath: expect.stringMatching(new RegExp(`/${runId}/report\\.html$`)),
      });
      expect(await page.title()).toBe(`closer run ${runId}: Work 1`);
      const report = (await page.evaluate("document.body.innerText")) as string;
      expect(report).toContain("Timeline");
      expect(report).toContain("completed");
      expect(errors).toEqual([]);

      // A report on another machine: where it is, and how to write it there.
      const away = await fetch(`${base}/runs/${elsewhere.id}/report`);
      expect(away.status).toBe(404);
      const awayText = await away.text();
      expect(awayText).toContain("on build-9 at /nowhere/on/this/machine/r-away/report.html");
      expect(awayText).toContain("closer report r-away --runs-dir /nowhere/on/this/machine");
      expect((await fetch(`${base}/runs/404404/report`)).status).toBe(404);
      await page.close();
    }, 150_000);
  },
);
