import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { html, trustedHtml } from "../../src/observe/report/html.js";
import { renderReport } from "../../src/observe/report/render-report.js";
import { REPORT_SCRIPT, REPORT_STYLE } from "../../src/observe/report/report-assets.js";
import {
  makeEmptyRunView,
  makeTwoIterationRunView,
  TWO_ITERATION_PROMPTS,
  TWO_ITERATION_TEXTS,
} from "./support/run-views.js";

function sha256(text: string): string {
  return `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
}

describe("docs/report.md#escaping: the html template", () => {
  it("escapes every interpolation but markup it made itself", () => {
    const made = html`<p title="${'"x'}">${"<b>"}${html`<i>${"&"}</i>`}${[1, "<", undefined]}</p>`;
    expect(made.toString()).toBe('<p title="&quot;x">&lt;b&gt;<i>&amp;</i>1&lt;</p>');
    expect(html`${trustedHtml("<hr>")}`.toString()).toBe("<hr>");
  });

  it("renders a non-finite number as nothing, never NaN", () => {
    expect(html`<rect width="${Number.NaN}" height="${Number.POSITIVE_INFINITY}">`.toString()).toBe(
      '<rect width="" height="">',
    );
  });
});

describe("docs/report.md#report: renderReport", () => {
  const page = renderReport(makeTwoIterationRunView(), { prompts: TWO_ITERATION_PROMPTS });

  it("has one timeline entry per iteration and both charts", () => {
    expect(page.match(/<li class="iteration[^"]*" data-iteration="/g)).toHaveLength(2);
    expect(page).toContain('data-iteration="1"');
    expect(page).toContain('data-iteration="2"');
    expect(page).toMatch(/<svg [^>]*data-chart="cost-by-reason"/);
    expect(page).toMatch(/<svg [^>]*data-chart="cost-over-iterations"/);
  });

  it("shows the retry prompt as sent in the iteration that chose the retry", () => {
    const first = page.slice(
      page.indexOf('data-iteration="1"'),
      page.indexOf('data-iteration="2"'),
    );
    expect(first).toContain("The retry prompt, sent in iteration 2");
    expect(first).toContain("## Tests are failing");
  });

  it("leaves no text of the record as markup", () => {
    expect(page).not.toContain("<script>window");
    expect(page).not.toContain("<img");
    expect(page).not.toContain("</textarea>");
    expect(page).not.toContain('"onload');
    expect(page).not.toContain('href="javascript:');
    expect(page).toContain("&lt;script&gt;window.__pwned = 1&lt;/script&gt;");
    expect(page.match(/<script>/g)).toHaveLength(1);
  });

  it("allows by its Content-Security-Policy exactly its own style and script", () => {
    const policy =
      /http-equiv="Content-Security-Policy" content="([^"]*)"/
        .exec(page)?.[1]
        ?.replaceAll("&#39;", "'") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain(`style-src ${sha256(REPORT_STYLE)}`);
    expect(policy).toContain(`script-src ${sha256(REPORT_SCRIPT)}`);
    expect(page).toContain(`<script>${REPORT_SCRIPT}</script>`);
    expect(page).toContain(`<style>${REPORT_STYLE}</style>`);
  });

  it("renders a run without iterations or cost without NaN and without empty paths", () => {
    const empty = renderReport(makeEmptyRunView(), { prompts: {} });
    expect(empty).not.toContain("NaN");
    expect(empty).not.toContain("Infinity");
    expect(empty).not.toMatch(/d="\s*"/);
    expect(empty).not.toContain("data-iteration=");
    expect(empty).toContain("No iterations on record.");
    expect(empty).toContain("No backend queries on record.");
  });

  it("docs/report.md#charts: gives each chart a legend", () => {
    expect(page).toContain('data-legend="cost-by-reason"');
    expect(page).toContain('data-legend="cost-over-iterations"');
    expect(page).toContain("the run&#39;s cost so far");
  });

  it("docs/report.md#charts: charts the tokens of a run no query has a price for, not a flat $0 line", () => {
    const view = makeTwoIterationRunView();
    const unpriced = {
      ...view,
      costUsd: 0,
      receipts: view.receipts.map((receipt) => ({ ...receipt, costUsd: 0 })),
      costByReason: view.costByReason.map((total) => ({
        ...total,
        costUsd: 0,
        usage: {
          inputTokens: 500,
          outputTokens: 50,
          cacheReadTokens: 2000,
          cacheCreationTokens: 0,
        },
      })),
    };
    const free = renderReport(unpriced, { prompts: TWO_ITERATION_PROMPTS });
    expect(free).not.toContain("NaN");
    expect(free).not.toContain('class="line"');
    expect(free).toMatch(/<svg [^>]*data-chart="tokens-by-reason"/);
    expect(free).toMatch(/<svg [^>]*data-chart="tokens-over-iterations"/);
    expect(free).toMatch(/<rect class="tokens-cache-read"/);
    expect(free).toContain('data-legend="tokens-over-iterations"');
    expect(free).toContain("Tokens over iterations");

    const nothing = renderReport(
      {
        ...unpriced,
        receipts: unpriced.receipts.map((receipt) => ({ ...receipt, usage: NO_USAGE })),
        costByReason: unpriced.costByReason.map((total) => ({ ...total, usage: NO_USAGE })),
      },
      { prompts: TWO_ITERATION_PROMPTS },
    );
    expect(nothing).not.toContain("<svg");
    expect(nothing).toContain("No cost and no tokens on record.");
  });
});

const NO_USAGE = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };

describe("docs/report.md#report: what each iteration did", () => {
  const page = renderReport(makeTwoIterationRunView(), TWO_ITERATION_TEXTS);
  const first = page.slice(page.indexOf('data-iteration="1"'), page.indexOf('data-iteration="2"'));
  const second = page.slice(page.indexOf('data-iteration="2"'));

  it("shows the model's summary, escaped", () => {
    expect(first).toContain('<blockquote class="summary">I changed add(). &lt;script&gt;');
    expect(second).toContain("Fixed add() so the test passes.");
  });

  it("lists the tool calls with how they ended, and counts the ones past the cut", () => {
    expect(first.match(/<li class="tool-call/g)).toHaveLength(3);
    expect(first).toContain('<li class="tool-call bad" data-tool-call="command">');
    expect(first).toContain("Bash · exit 1 · 2 s");
    expect(second.match(/<li class="tool-call/g)).toHaveLength(20);
    expect(second).toContain("and 5 more");
  });

  it("shows the diff with its files and counts, escaped; an empty one as no change", () => {
    expect(first).toContain("1 file changed, +1 −1");
    expect(first).toContain(
      '<span class="diff-add">+export const add = (a, b) =&gt; a - b; // &lt;script&gt;',
    );
    expect(second).toContain("No file changed.");
  });

  it("shows a note of the record in place of a diff", () => {
    const noted = renderReport(makeTwoIterationRunView(), {
      ...TWO_ITERATION_TEXTS,
      diffs: {
        1: { file: "diffs/iteration-001.diff", text: "# The diff could not be read: boom\n" },
      },
    });
    expect(noted).toContain("The diff could not be read: boom");
  });
});
