/**
 * `closer report`'s page: one self-contained HTML document of a run
 * (docs/report.md#report), every text of the record escaped (docs/report.md#escaping).
 */
import type { BaselineView, EndView, ReasonTotal, RunView, SetupView } from "../run-view.js";
import { type Html, html, trustedHtml } from "./html.js";
import { makeContentSecurityPolicy, REPORT_SCRIPT, REPORT_STYLE } from "./report-assets.js";
import { chartMeasure, renderByReasonChart, renderOverIterationsChart } from "./report-charts.js";
import { formatCost, formatDuration, formatTokens } from "./report-format.js";
import { renderQuote } from "./report-quote.js";
import { type ReportTexts, renderTimeline } from "./report-timeline.js";

export type { ReportTexts } from "./report-timeline.js";

export function renderReport(view: RunView, texts: ReportTexts): string {
  const title = `closer run ${view.runId}: ${view.task.title}`;
  return `<!DOCTYPE html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${makeContentSecurityPolicy()}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${trustedHtml(REPORT_STYLE)}</style>
</head>
<body>
<main>
${renderHeader(view)}
${renderSetup(view.setup)}
<h2 id="baseline">Baseline</h2>
${renderBaseline(view.baseline)}
<h2 id="cost">Cost</h2>
${renderCost(view)}
<h2 id="timeline">Timeline</h2>
<div class="controls"><button type="button" data-details="open">Expand all</button><button type="button" data-details="close">Collapse all</button></div>
${renderTimeline(view.timeline, texts)}
<h2 id="end">End</h2>
${renderEnd(view.end)}
<footer>closer report of ${view.runDir}</footer>
</main>
<script>${trustedHtml(REPORT_SCRIPT)}</script>
</body>
</html>`}\n`;
}

function fact(name: string, value: Html | string): Html {
  return html`<div class="fact"><span class="name">${name}</span><span class="value">${value}</span></div>`;
}

function statusClass(status: RunView["status"]): string {
  if (status === "completed") return "status ok";
  return status === "running" ? "status" : "status bad";
}

function renderHeader(view: RunView): Html {
  const task = view.task;
  const source =
    task.kind === "issue"
      ? html`issue${task.issueNumber === undefined ? "" : ` #${task.issueNumber}`}${task.url === undefined ? "" : html` · ${renderLink(task.url)}`}`
      : html`written task`;
  return html`<header>
<h1>${task.title}</h1>
<div class="run-id">run ${view.runId} · agent ${view.agent}</div>
<div class="facts">
${fact("status", html`<span class="${statusClass(view.status)}" data-status="${view.status}">${view.status}</span>`)}
${fact("iterations", String(view.iterations))}
${fact("cost", formatCost(view.costUsd))}
${fact("duration", formatDuration(view.durationMs))}
${fact("tokens", formatTokens(view.usage))}
${fact("started", view.startedAt)}
${view.endedAt === undefined ? "" : fact("ended", view.endedAt)}
${view.attempts > 1 ? fact("starts", `${view.attempts} (resumed ${view.attempts - 1}×)`) : ""}
</div>
<p class="reason"><strong>Why it ended:</strong> ${view.reason === "" ? "it has not ended" : view.reason}</p>
<p>Task: ${source}${view.worktree === undefined ? "" : html` · worktree <code>${view.worktree.path}</code> on <code>${view.worktree.branch}</code> from <code>${view.worktree.baseBranch}</code>`}</p>
<details class="task-body"><summary>The task as given</summary><pre>${task.body}</pre></details>
</header>`;
}

/** Only a web address becomes a link; anything else (`javascript:`, …) stays text. */
function renderLink(url: string): Html {
  return /^https?:\/\//i.test(url)
    ? html`<a href="${url}" rel="noreferrer">${url}</a>`
    : html`${url}`;
}

/** The project's setup, when it ran: each command, how it ended, what a failure printed. */
function renderSetup(setup: readonly SetupView[]): Html {
  if (setup.length === 0) return html``;
  const commands = setup.map((command) => {
    const failed = command.exitCode !== 0 || command.timedOut === true;
    const how = command.timedOut === true ? "timed out" : `exit ${command.exitCode}`;
    return html`<li class="${failed ? "bad" : "ok"}" data-setup="${command.command}"><span class="mark">${failed ? "✗" : "✓"}</span><code>${command.command}</code> <span class="meta">${how} · ${formatDuration(command.durationMs)}</span>${failed ? renderQuote(command.quoted, command.output, "All it printed") : html``}</li>`;
  });
  return html`<h2 id="setup">Setup</h2><ul class="checks">${commands}</ul>`;
}

function renderBaseline(baseline: BaselineView | undefined): Html {
  if (baseline === undefined) return html`<p class="empty">No baseline on record.</p>`;
  const checks = baseline.checks.map(
    (check) =>
      html`<li class="${check.valid ? "ok" : "bad"}"><span class="mark">${check.valid ? "✓" : "✗"}</span>${check.validator} <span class="meta">${formatDuration(check.durationMs)}</span></li>`,
  );
  const dirty =
    baseline.dirtyFiles.length === 0
      ? html`<p>The tree was clean.</p>`
      : html`<p>Uncommitted before the run:</p><ul>${baseline.dirtyFiles.map((file) => html`<li><code>${file}</code></li>`)}</ul>`;
  return html`<p>Commit <code>${baseline.commit ?? "none"}</code> · ${baseline.protectedFiles} protected files · taken in ${formatDuration(baseline.durationMs)}</p>
${checks.length === 0 ? html`<p class="empty">No check ran on the baseline.</p>` : html`<ul class="checks">${checks}</ul>`}
${dirty}`;
}

function renderReasonTable(totals: readonly ReasonTotal[]): Html {
  if (totals.length === 0) return html``;
  const rows = totals.map(
    (total) =>
      html`<tr><td>${total.reason}</td><td>${total.queries}</td><td>${formatCost(total.costUsd)}</td><td>${formatDuration(total.durationMs)}</td><td>${formatTokens(total.usage)}</td></tr>`,
  );
  return html`<details><summary>As a table</summary><table class="reasons"><tr><th>reason</th><th>queries</th><th>cost</th><th>time</th><th>tokens</th></tr>${rows}</table></details>`;
}

function renderCost(view: RunView): Html {
  const what = chartMeasure(view.receipts) === "tokens" ? "Tokens" : "Cost";
  const unpriced =
    what === "Tokens"
      ? html`<p class="meta">No query of the run has a price: the charts show its tokens.</p>`
      : "";
  return html`${unpriced}<div class="charts">
<section><h3>${what} by reason</h3>${renderByReasonChart(view.costByReason, view.receipts)}${renderReasonTable(view.costByReason)}</section>
<section><h3>${what} over iterations</h3>${renderOverIterationsChart(view.receipts, view.iterations)}</section>
</div>`;
}

function renderEnd(end: EndView): Html {
  const effects =
    end.sideEffects.length === 0
      ? html`<p class="empty">No side effects.</p>`
      : html`<ul class="side-effects">${end.sideEffects.map(
          (effect) =>
            html`<li class="${effect.ok ? "ok" : "bad"}"><span class="mark">${effect.ok ? "✓" : "✗"}</span>${effect.action} <code>${effect.target}</code>${effect.detail === undefined ? "" : html` <span class="meta">${effect.detail}</span>`}</li>`,
        )}</ul>`;
  const warnings =
    end.warnings.length === 0
      ? html``
      : html`<h4>Warnings</h4><ul class="warn">${end.warnings.map((warning) => html`<li>${warning}</li>`)}</ul>`;
  const flaky =
    end.flaky.length === 0
      ? html``
      : html`<h4>Flaky checks</h4><ul>${end.flaky.map((entry) => html`<li>${entry.validator} in iteration ${entry.iteration}</li>`)}</ul>`;
  return html`<p><span class="${statusClass(end.status)}">${end.status}</span> · ${end.success ? "verified done" : "not done"} · ${end.reason}</p>
${end.refutedDeclarations > 0 ? html`<p class="warn">${end.refutedDeclarations === 1 ? "1 declaration of done was" : `${end.refutedDeclarations} declarations of done were`} refuted by the checks.</p>` : ""}
<h4>Side effects</h4>${effects}${flaky}${warnings}`;
}
