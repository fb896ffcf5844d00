/**
 * The queue page (docs/queue.md#queue-page): the jobs as `closer queue` lists
 * them, every value escaped by the report's `html` (docs/report.md#escaping).
 */
import { type Html, html, trustedHtml } from "../observe/report/html.js";
import { formatJobTotals, totalsOf } from "./list-jobs.js";
import { QUEUE_PAGE_SCRIPT, QUEUE_PAGE_STYLE, queuePagePolicy } from "./queue-page-assets.js";
import type { QueuePageRow } from "./queue-page-rows.js";

const COLUMNS = [
  "job",
  "state",
  "work",
  "agent",
  "run",
  "status",
  "iter",
  "cost",
  "worker",
  "report",
];

/** The whole page, as it is when asked for; its script keeps it current. */
export function renderQueuePage(rows: readonly QueuePageRow[], now: Date): string {
  const totals = rows.length === 0 ? "no jobs" : formatJobTotals(totalsOf(rows));
  return pageShell(
    "closer queue",
    html`<h1>closer queue</h1>
<p><span id="totals">${totals}</span> · <span id="updated" class="muted">as of ${now.toLocaleTimeString("en-GB")}</span></p>
<table>
<thead><tr>${COLUMNS.map((title) => html`<th>${title}</th>`)}</tr></thead>
<tbody id="jobs">${rows.map(renderRow)}</tbody>
</table>
<ul id="failures">${rows.map((row) =>
      row.failedReason === undefined
        ? ""
        : html`<li>job ${row.id} failed: ${row.failedReason}</li>`,
    )}</ul>
<script>${trustedHtml(QUEUE_PAGE_SCRIPT)}</script>`,
  );
}

/** A page of one message (a report that is elsewhere, a job that is not there). */
export function renderMessagePage(title: string, lines: readonly string[]): string {
  return pageShell(
    title,
    html`<h1>${title}</h1>
${lines.map((line) => html`<p>${line}</p>`)}
<p><a href="/">back to the queue</a></p>`,
  );
}

function pageShell(title: string, body: Html): string {
  return `<!DOCTYPE html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${queuePagePolicy()}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>${trustedHtml(QUEUE_PAGE_STYLE)}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`}\n`;
}

function renderRow(row: QueuePageRow): Html {
  const dash = (value: string | number | undefined) => (value === undefined ? "-" : String(value));
  return html`<tr data-job="${row.id}" data-state="${row.state}"><td>${row.id}</td><td>${row.state}</td><td>${row.work}</td><td>${row.agent}</td><td>${dash(row.runId)}</td><td>${dash(row.runStatus)}</td><td class="num">${dash(row.iteration)}</td><td class="num">${row.costUsd === undefined ? "-" : `$${row.costUsd.toFixed(2)}`}</td><td>${dash(row.worker)}</td><td>${renderReportCell(row)}</td></tr>`;
}

function renderReportCell(row: QueuePageRow): Html | string {
  if (row.reportUrl !== undefined) return html`<a href="${row.reportUrl}">report</a>`;
  if (row.reportElsewhere !== undefined)
    return html`<span class="elsewhere">${row.reportElsewhere}</span>`;
  return "-";
}
