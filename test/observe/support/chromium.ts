import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** Debian's chromium unless CLOSER_CHROMIUM names another; undefined when none is there. */
export function findChromium(): string | undefined {
  const chosen = process.env.CLOSER_CHROMIUM;
  if (chosen !== undefined && chosen !== "") return chosen;
  return CANDIDATES.find((path) => existsSync(path));
}

/** A headless Chromium, or why none could be started. */
export async function startChromium(): Promise<{ browser: Browser } | { why: string }> {
  const executablePath = findChromium();
  if (executablePath === undefined) {
    return { why: `no Chromium at ${CANDIDATES.join(", ")} and CLOSER_CHROMIUM is not set` };
  }
  // Chromium's own sandbox refuses to start as root; the page is a local file either way.
  const asRoot = process.getuid?.() === 0;
  try {
    const browser = await puppeteer.launch({
      executablePath,
      headless: true,
      args: [...(asRoot ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run"],
    });
    return { browser };
  } catch (error) {
    return { why: `Chromium at ${executablePath} did not start: ${(error as Error).message}` };
  }
}

/** A page opened from file://, with every console error, page error and request it made. */
export interface OpenedPage {
  readonly page: Page;
  readonly consoleErrors: string[];
  readonly pageErrors: string[];
  readonly requests: string[];
}

export async function openFile(
  browser: Browser,
  file: string,
  viewport = { width: 1200, height: 900 },
): Promise<OpenedPage> {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const opened: OpenedPage = { page, consoleErrors: [], pageErrors: [], requests: [] };
  page.on("console", (message) => {
    if (message.type() === "error") opened.consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => {
    opened.pageErrors.push(String(error));
  });
  page.on("request", (request) => {
    opened.requests.push(request.url());
  });
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  return opened;
}

/** What the page shows once every <details> is opened by its own "Expand all" button. */
export async function readReportPage(opened: OpenedPage) {
  await opened.page.click('button[data-details="open"]');
  return (await opened.page.evaluate(`(() => ({
    iterations: [...document.querySelectorAll("[data-iteration]")].map((entry) => entry.getAttribute("data-iteration")),
    allOpen: [...document.querySelectorAll("details")].every((details) => details.open),
    text: document.body.innerText,
    pwned: typeof window.__pwned,
    scripts: document.scripts.length,
    images: document.images.length,
    scrollWidth: document.documentElement.scrollWidth,
    legends: [...document.querySelectorAll("[data-legend]")].map((legend) => legend.getAttribute("data-legend")),
    charts: Object.fromEntries([...document.querySelectorAll("svg[data-chart]")].map((svg) => [
      svg.getAttribute("data-chart"),
      [...svg.querySelectorAll("path, rect")].filter((shape) => {
        const box = shape.getBBox();
        return box.width > 0 && box.height > 0;
      }).length,
    ])),
  }))()`)) as {
    iterations: string[];
    allOpen: boolean;
    text: string;
    pwned: string;
    scripts: number;
    images: number;
    scrollWidth: number;
    legends: string[];
    charts: Record<string, number>;
  };
}

/** Where the browser tests leave what a person may want to look at (ignored by git). */
export const TEST_ARTIFACTS = fileURLToPath(new URL("../../../test-artifacts/", import.meta.url));

/** The whole page as a PNG, in its viewport's width. */
export async function saveScreenshot(page: Page, file: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await page.screenshot({ path: file as `${string}.png`, fullPage: true });
}
