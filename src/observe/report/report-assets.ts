/**
 * The report's stylesheet and script, inline so the file works alone from
 * file:// (docs/report.md#report), and their hashes for the Content-Security-Policy
 * (docs/report.md#escaping).
 */
import { createHash } from "node:crypto";

export const REPORT_STYLE = `
:root { color-scheme: light; --ink: #1d2330; --muted: #5d6675; --line: #d9dee7; --ok: #17803d;
  --bad: #c0392b; --warn: #a15c00; --accent: #3563c9; --paper: #ffffff; --panel: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
  background: var(--paper); }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 0; }
h4 { font-size: 13px; margin: 12px 0 4px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 8px 10px;
  overflow: auto; max-height: 480px; white-space: pre-wrap; word-break: break-word; font-size: 12px; }
details > summary { cursor: pointer; color: var(--accent); }
table { border-collapse: collapse; }
td, th { padding: 2px 12px 2px 0; text-align: left; vertical-align: top; }
th { color: var(--muted); font-weight: 500; }
ul { margin: 4px 0; padding-left: 20px; }
.run-id { color: var(--muted); font-family: ui-monospace, monospace; }
.facts { display: flex; flex-wrap: wrap; gap: 8px 24px; margin: 12px 0; }
.fact { display: flex; flex-direction: column; }
.fact .name { font-size: 12px; color: var(--muted); }
.status { font-weight: 600; }
.status.ok, .ok { color: var(--ok); }
.status.bad, .bad { color: var(--bad); }
.warn { color: var(--warn); }
.controls { margin: 8px 0; }
.controls button { font: inherit; padding: 2px 10px; margin-right: 6px; cursor: pointer; }
.timeline { list-style: none; padding: 0; margin: 0; border-left: 3px solid var(--line); }
.iteration { margin: 0 0 14px; padding: 8px 14px; position: relative; }
.iteration::before { content: ""; position: absolute; left: -9px; top: 14px; width: 12px; height: 12px;
  border-radius: 50%; background: var(--accent); border: 2px solid var(--paper); }
.iteration.failed::before { background: var(--bad); }
.iteration.passed::before { background: var(--ok); }
.iteration .meta { color: var(--muted); font-size: 12px; }
.checks { list-style: none; padding: 0; }
.checks li { margin: 2px 0; }
.mark { display: inline-block; width: 1.2em; font-weight: 700; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 440px), 1fr)); gap: 16px 28px; }
.charts section { min-width: 0; }
.chart-figure { margin: 6px 0; }
.chart { display: block; width: 100%; height: auto; font-size: 12px; }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 16px; padding: 0; margin: 4px 0 0;
  font-size: 12px; color: var(--muted); }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 5px; vertical-align: -1px; }
.swatch-box.bar { background: var(--accent); }
.swatch-box.iteration-bar { background: #f0a33a; opacity: .7; }
.swatch-line.line { height: 0; border-top: 2px solid var(--accent); vertical-align: 3px; }
.chart .tokens-input, .swatch.tokens-input { fill: #3563c9; background: #3563c9; }
.chart .tokens-output, .swatch.tokens-output { fill: #17803d; background: #17803d; }
.chart .tokens-cache-read, .swatch.tokens-cache-read { fill: #9db4e6; background: #9db4e6; }
.chart .tokens-cache-written, .swatch.tokens-cache-written { fill: #f0a33a; background: #f0a33a; }
main { overflow-wrap: anywhere; }
table { max-width: 100%; }
blockquote.summary { margin: 4px 0 8px; padding: 6px 12px; border-left: 3px solid var(--accent);
  background: var(--panel); white-space: pre-wrap; }
.tool-calls { list-style: none; padding: 0; font-size: 13px; }
.tool-calls li { margin: 1px 0; }
.tool-calls .action { display: inline-block; min-width: 5.5em; color: var(--muted); font-size: 12px; }
.tool-calls .more { color: var(--muted); font-style: italic; }
.diff-files { list-style: none; padding: 0; font-size: 13px; }
.diff-text .diff-add { color: var(--ok); }
.diff-text .diff-del { color: var(--bad); }
.diff-text .diff-hunk { color: var(--accent); }
.diff-text .diff-file { font-weight: 600; }
.diff-text .diff-cut { color: var(--warn); font-style: italic; }
.chart .bar { fill: var(--accent); }
.chart .label, .chart .value, .chart .tick { fill: var(--ink); }
.chart .axis { stroke: var(--muted); stroke-width: 1; }
.chart .line { fill: none; stroke: var(--accent); stroke-width: 2; }
.chart .area { fill: var(--accent); fill-opacity: .12; stroke: none; }
.chart .point { fill: var(--accent); }
.chart .iteration-bar { fill: #f0a33a; fill-opacity: .7; }
.empty { color: var(--muted); font-style: italic; }
footer { margin-top: 36px; color: var(--muted); font-size: 12px; }
`;

/** Expand or collapse every <details> at once; nothing else runs. */
export const REPORT_SCRIPT = `
document.querySelectorAll("button[data-details]").forEach(function (button) {
  button.addEventListener("click", function () {
    var open = button.getAttribute("data-details") === "open";
    document.querySelectorAll("details").forEach(function (details) { details.open = open; });
  });
});
`;

function sourceHash(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/** Only the report's own style and script run; nothing is fetched (docs/report.md#escaping). */
export function makeContentSecurityPolicy(): string {
  return [
    "default-src 'none'",
    `style-src ${sourceHash(REPORT_STYLE)}`,
    `script-src ${sourceHash(REPORT_SCRIPT)}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}
