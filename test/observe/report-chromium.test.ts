import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderReport } from "../../src/observe/report/render-report.js";
import { openFile, readReportPage, startChromium } from "./support/chromium.js";
import {
  makeEmptyRunView,
  makeTwoIterationRunView,
  TWO_ITERATION_PROMPTS,
} from "./support/run-views.js";

const chromium = await startChromium();
if ("why" in chromium) {
  console.warn(`report-chromium: the browser tests are skipped: ${chromium.why}`);
}
const browser: Browser | undefined = "browser" in chromium ? chromium.browser : undefined;

async function writeReportFile(folder: string, name: string, page: string): Promise<string> {
  const file = join(folder, name);
  await writeFile(file, page);
  return file;
}

describe.skipIf(browser === undefined)(
  "docs/report.md#report: the report in headless Chromium",
  () => {
    let folder = "";
    beforeAll(async () => {
      folder = await mkdtemp(join(tmpdir(), "closer-report-"));
    });
    afterAll(async () => {
      await browser?.close();
      await rm(folder, { recursive: true, force: true });
    });

    it("docs/report.md#escaping: record texts full of markup render as text, and nothing of them runs", async () => {
      const file = await writeReportFile(
        folder,
        "markup.html",
        renderReport(makeTwoIterationRunView(), { prompts: TWO_ITERATION_PROMPTS }),
      );
      const opened = await openFile(browser as Browser, file);
      const shown = await readReportPage(opened);

      expect(shown.iterations).toEqual(["1", "2"]);
      expect(shown.allOpen).toBe(true);
      expect(shown.text).toContain("<script>window.__pwned = 1</script>");
      expect(shown.text).toContain('<img src=x onerror="window.__pwned=2">');
      expect(shown.pwned).toBe("undefined");
      expect(shown.scripts).toBe(1);
      expect(shown.images).toBe(0);
      expect(shown.charts["cost-by-reason"]).toBeGreaterThan(0);
      expect(shown.charts["cost-over-iterations"]).toBeGreaterThan(0);
      expect(opened.consoleErrors).toEqual([]);
      expect(opened.pageErrors).toEqual([]);
      expect(opened.requests.filter((url) => !url.startsWith("file://"))).toEqual([]);
    });

    it("shows a run without iterations or cost without errors", async () => {
      const file = await writeReportFile(
        folder,
        "empty.html",
        renderReport(makeEmptyRunView(), { prompts: {} }),
      );
      const opened = await openFile(browser as Browser, file);
      const shown = await readReportPage(opened);

      expect(shown.iterations).toEqual([]);
      expect(shown.text).toContain("No iterations on record.");
      expect(opened.consoleErrors).toEqual([]);
      expect(opened.pageErrors).toEqual([]);
    });
  },
);
