/**
 * The queue page's stylesheet and script, inline so the page loads nothing,
 * and the Content-Security-Policy that lets only them run (docs/queue.md#queue-page).
 */
import { createHash } from "node:crypto";

/** How often the page asks for `/jobs.json` again. */
export const QUEUE_PAGE_REFRESH_MS = 3000;

export const QUEUE_PAGE_STYLE = `
:root { color-scheme: light; --ink: #1d2330; --muted: #5d6675; --line: #d9dee7; --ok: #17803d;
  --bad: #c0392b; --accent: #3563c9; --panel: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); }
main { max-width: 1240px; margin: 0 auto; padding: 20px 20px 40px; }
h1 { font-size: 20px; margin: 0 0 4px; }
.muted { color: var(--muted); }
table { width: 100%; border-collapse: collapse; table-layout: fixed; margin-top: 12px; }
th, td { text-align: left; padding: 5px 6px; border-bottom: 1px solid var(--line); vertical-align: top;
  overflow-wrap: anywhere; }
th { background: var(--panel); font-weight: 600; }
th:nth-child(1), th:nth-child(7) { width: 5%; }
th:nth-child(2), th:nth-child(4), th:nth-child(6) { width: 8%; }
th:nth-child(3) { width: 19%; }
th:nth-child(5) { width: 14%; }
th:nth-child(8) { width: 6%; }
th:nth-child(9) { width: 12%; }
th:nth-child(10) { width: 15%; }
td.num, th:nth-child(7), th:nth-child(8) { text-align: right; }
tr[data-state="active"] td:nth-child(2) { color: var(--accent); font-weight: 600; }
tr[data-state="completed"] td:nth-child(2) { color: var(--ok); }
tr[data-state="failed"] td:nth-child(2) { color: var(--bad); font-weight: 600; }
.elsewhere { color: var(--muted); font-size: 12px; }
#failures { color: var(--bad); padding-left: 18px; overflow-wrap: anywhere; }
a { color: var(--accent); }
`;

/**
 * Every few seconds: the rows again from /jobs.json, drawn with textContent
 * only, so no value ever becomes markup.
 */
export const QUEUE_PAGE_SCRIPT = `
(function () {
  var REFRESH_MS = ${QUEUE_PAGE_REFRESH_MS};
  function text(value) { return value === undefined || value === null ? "-" : String(value); }
  function money(value) { return typeof value === "number" ? "$" + value.toFixed(2) : "-"; }
  function cell(value, className) {
    var td = document.createElement("td");
    td.textContent = value;
    if (className) td.className = className;
    return td;
  }
  function reportCell(row) {
    var td = document.createElement("td");
    if (row.reportUrl) {
      var link = document.createElement("a");
      link.href = row.reportUrl;
      link.textContent = "report";
      td.appendChild(link);
    } else if (row.reportElsewhere) {
      var span = document.createElement("span");
      span.className = "elsewhere";
      span.textContent = row.reportElsewhere;
      td.appendChild(span);
    } else {
      td.textContent = "-";
    }
    return td;
  }
  function count(rows, states) {
    return rows.filter(function (row) { return states.indexOf(row.state) >= 0; }).length;
  }
  function show(rows) {
    var body = document.getElementById("jobs");
    var failures = document.getElementById("failures");
    body.textContent = "";
    failures.textContent = "";
    rows.forEach(function (row) {
      var tr = document.createElement("tr");
      tr.setAttribute("data-job", row.id);
      tr.setAttribute("data-state", row.state);
      [cell(text(row.id)), cell(text(row.state)), cell(text(row.work)), cell(text(row.agent)),
        cell(text(row.runId)), cell(text(row.runStatus)), cell(text(row.iteration), "num"),
        cell(money(row.costUsd), "num"), cell(text(row.worker)), reportCell(row)]
        .forEach(function (td) { tr.appendChild(td); });
      body.appendChild(tr);
      if (row.failedReason) {
        var item = document.createElement("li");
        item.textContent = "job " + row.id + " failed: " + row.failedReason;
        failures.appendChild(item);
      }
    });
    var cost = rows.reduce(function (sum, row) { return sum + (row.costUsd || 0); }, 0);
    document.getElementById("totals").textContent = rows.length === 0 ? "no jobs" :
      count(rows, ["active"]) + " running, " + count(rows, ["waiting", "delayed"]) + " waiting, " +
      count(rows, ["completed"]) + " done, " + count(rows, ["failed"]) + " failed, total cost $" +
      cost.toFixed(2);
  }
  function refresh() {
    fetch("/jobs.json", { cache: "no-store" })
      .then(function (response) {
        if (!response.ok) throw new Error("the server answered " + response.status);
        return response.json();
      })
      .then(function (rows) {
        show(rows);
        document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
      })
      .catch(function (error) {
        document.getElementById("updated").textContent = "could not refresh: " + error.message;
      })
      .then(function () { setTimeout(refresh, REFRESH_MS); });
  }
  setTimeout(refresh, REFRESH_MS);
})();
`;

function sourceHash(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/** Only the page's own style and script run; it fetches only /jobs.json from its own server. */
export function queuePagePolicy(): string {
  return [
    "default-src 'none'",
    `style-src ${sourceHash(QUEUE_PAGE_STYLE)}`,
    `script-src ${sourceHash(QUEUE_PAGE_SCRIPT)}`,
    "connect-src 'self'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}
