import { existsSync, readdirSync } from "node:fs";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { readRunView } from "../../src/observe/read-run-view.js";
import { writeRunReport } from "../../src/observe/report/write-run-report.js";
import {
  openFile,
  readReportPage,
  saveScreenshot,
  startChromium,
  TEST_ARTIFACTS,
} from "./support/chromium.js";
import { ensureToolCallEvents, recordDemoRun, recordMarkupRun } from "./support/report-runs.js";

const chromium = await startChromium();
if ("why" in chromium) {
  console.warn(`report-chromium-runs: the browser tests are skipped: ${chromium.why}`);
}
const browser = "browser" in chromium ? chromium.browser : undefined;

/** The committed corpus: one recorded run per way a run ends (docs/replay.md). */
const CORPUS = fileURLToPath(new URL("../fixtures/recorded-runs/", import.meta.url));
const CORPUS_RUNS = existsSync(CORPUS)
  ? readdirSync(CORPUS).filter((name) => existsSync(join(CORPUS, name, "run.json")))
  : [];

describe.skipIf(browser === undefined)(
  "docs/report.md#report: reports of recorded runs in headless Chromium",
  () => {
    let folder = "";
    afterAll(async () => {
      await browser?.close();
      if (folder !== "") await rm(folder, { recursive: true, force: true });
    });

    it.each(CORPUS_RUNS)(
      "the corpus run %s: one timeline entry per iteration, its charts, no errors",
      async (name) => {
        folder ||= await mkdtemp(join(tmpdir(), "closer-report-corpus-"));
        const view = await readRunView(join(CORPUS, name));
        const opened = await openFile(
          browser!,
          await writeRunReport(view, join(folder, `${name}.html`)),
        );
        const shown = await readReportPage(opened);

        expect(shown.iterations).toEqual(view.timeline.map((entry) => String(entry.iteration)));
        if (view.costUsd > 0) {
          expect(shown.charts["cost-by-reason"]).toBeGreaterThan(0);
          expect(shown.charts["cost-over-iterations"]).toBeGreaterThan(0);
        }
        expect(shown.text).not.toContain("NaN");
        expect(opened.consoleErrors).toEqual([]);
        expect(opened.pageErrors).toEqual([]);
      },
    );

    it("docs/report.md#escaping: a run whose task and test output carry markup shows it as text, and nothing of it runs", async () => {
      const run = await recordMarkupRun();
      try {
        const file = await writeRunReport(await readRunView(run.runDir));
        const opened = await openFile(browser!, file);
        const shown = await readReportPage(opened);

        expect(shown.iterations).toEqual(["1", "2"]);
        expect(shown.charts["cost-by-reason"]).toBeGreaterThan(0);
        expect(shown.charts["cost-over-iterations"]).toBeGreaterThan(0);
        expect(shown.text).toContain("The test <script>window.__pwned = 1</script>");
        expect(shown.text).toContain('<img src=x onerror="window.__pwned=2">');
        // The failing test's line as the runner printed it: TAP's subtest, or the spec reporter's (Node 24).
        expect(shown.text).toMatch(/(# Subtest: |✖ )<script>window\.__pwned = 1<\/script>/);
        expect(shown.pwned).toBe("undefined");
        expect(shown.scripts).toBe(1);
        expect(shown.images).toBe(0);
        expect(opened.consoleErrors).toEqual([]);
        expect(opened.pageErrors).toEqual([]);
        expect(opened.requests.filter((url) => !url.startsWith("file://"))).toEqual([]);
      } finally {
        await run.cleanup();
      }
    });

    it("docs/report.md#report: a two-iteration run shows each iteration's summary, tool calls and diff; its charts have legends and fit 1280 px", async () => {
      const run = await recordMarkupRun();
      try {
        const toolCalls = await ensureToolCallEvents(run.runDir);
        const file = await writeRunReport(await readRunView(run.runDir));
        const opened = await openFile(browser!, file, { width: 1280, height: 900 });
        const shown = await readReportPage(opened);
        const entries =
          (await opened.page.evaluate(`[...document.querySelectorAll("[data-iteration]")].map((entry) => ({
          summary: entry.querySelector("blockquote.summary")?.innerText ?? "",
          toolCalls: entry.querySelectorAll("li.tool-call").length,
          diff: entry.querySelector("[data-diff]")?.innerText ?? "",
        }))`)) as { summary: string; toolCalls: number; diff: string }[];

        expect(shown.iterations).toEqual(["1", "2"]);
        expect(entries.map((entry) => entry.summary)).toEqual(["fixed add", "fixed add"]);
        expect(entries.reduce((sum, entry) => sum + entry.toolCalls, 0)).toBe(toolCalls);
        expect(entries.every((entry) => entry.toolCalls > 0)).toBe(true);
        expect(entries[0]?.diff).toBe("No file changed.");
        expect(entries[1]?.diff).toContain("+  return left + right;");
        expect(entries[1]?.diff).toContain("diff --git a/src/add.js b/src/add.js");
        expect(shown.legends).toEqual(["cost-by-reason", "cost-over-iterations"]);
        expect(shown.scrollWidth).toBeLessThanOrEqual(1280);
        expect(opened.consoleErrors).toEqual([]);
        expect(opened.pageErrors).toEqual([]);
      } finally {
        await run.cleanup();
      }
    });

    it("the README demo's run: two iterations, both charts, no errors; its screenshot in test-artifacts/", async () => {
      const run = await recordDemoRun();
      try {
        const file = await writeRunReport(await readRunView(run.runDir));
        const opened = await openFile(browser!, file, { width: 1280, height: 900 });
        await saveScreenshot(opened.page, join(TEST_ARTIFACTS, "report-demo.png"));
        await copyFile(file, join(TEST_ARTIFACTS, "report-demo.html"));
        const shown = await readReportPage(opened);

        expect(shown.iterations).toEqual(["1", "2"]);
        expect(shown.charts["cost-by-reason"]).toBeGreaterThan(0);
        expect(shown.charts["cost-over-iterations"]).toBeGreaterThan(0);
        expect(shown.text).toContain("collapses runs of spaces and trims the ends");
        expect(shown.legends).toHaveLength(2);
        expect(shown.scrollWidth).toBeLessThanOrEqual(1280);
        expect(opened.consoleErrors).toEqual([]);
        expect(opened.pageErrors).toEqual([]);
      } finally {
        await run.cleanup();
      }
    });
  },
);
