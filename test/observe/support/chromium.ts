import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
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
