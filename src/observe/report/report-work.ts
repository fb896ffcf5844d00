/**
 * What an iteration did, as the report shows it (docs/report.md#report): the model's summary,
 * its tool calls and the diff the iteration made (docs/record.md#diffs).
 */
import { boundDiffs } from "../../completion/review-evidence.js";
import type { FileChange } from "../../ports/files.js";
import type { RecordedText } from "../../record/run-folder-reader.js";
import { splitDiff } from "../../workspace/changes-since.js";
import type { ToolCallView } from "../run-view.js";
import { type Html, html } from "./html.js";
import { formatDuration } from "./report-format.js";

/** Tool calls listed per iteration; the rest are counted. */
export const TOOL_CALLS_SHOWN = 20;
/** Characters of an iteration's diff the report shows, whole files first (as the closure review's evidence). */
export const REPORT_DIFF_LIMIT = 20_000;
/** A diff of at most this many lines is shown open. */
const OPEN_DIFF_LINES = 60;
const TARGET_CHARACTERS = 160;

export function renderSummary(summary: string | undefined): Html {
  if (summary === undefined) return html``;
  return html`<h4>Summary</h4><blockquote class="summary">${summary}</blockquote>`;
}

export function renderToolCalls(calls: readonly ToolCallView[]): Html {
  if (calls.length === 0) return html``;
  const shown = calls.slice(0, TOOL_CALLS_SHOWN).map((call) => {
    const target =
      call.target.length <= TARGET_CHARACTERS
        ? call.target
        : `${call.target.slice(0, TARGET_CHARACTERS - 1)}…`;
    const facts = [
      call.tool,
      call.exitCode === undefined ? undefined : `exit ${call.exitCode}`,
      call.failed && call.exitCode === undefined ? "failed" : undefined,
      call.durationMs === undefined ? undefined : formatDuration(call.durationMs),
    ].filter((fact) => fact !== undefined);
    return html`<li class="tool-call${call.failed ? " bad" : ""}" data-tool-call="${call.action}"><span class="action">${call.action}</span> <code title="${call.target}">${target}</code> <span class="meta">${facts.join(" · ")}</span></li>`;
  });
  const more = calls.length - TOOL_CALLS_SHOWN;
  const failed = calls.filter((call) => call.failed).length;
  return html`<h4>Tool calls <span class="meta">${calls.length}${failed > 0 ? ` · ${failed} failed` : ""}</span></h4>
<ul class="tool-calls">${shown}${more > 0 ? html`<li class="more">and ${more} more</li>` : ""}</ul>`;
}

/** The iteration's diff: its files with lines added and removed, then the diff within the budget. */
export function renderDiff(diff: RecordedText | undefined): Html {
  if (diff === undefined) return html``;
  const files = splitDiff(diff.text);
  const notes = diff.text
    .split("\n")
    .filter((line) => line.startsWith("# "))
    .map((line) => line.slice(2));
  if (files.length === 0) {
    const said = notes.length > 0 ? notes.join(" ") : "No file changed.";
    return html`<h4>Diff</h4><p class="empty" data-diff="${diff.file}">${said}</p>`;
  }
  const shown = boundDiffs(files, REPORT_DIFF_LIMIT);
  const lines = shown.split("\n");
  const counts = files.map(countLines);
  const added = counts.reduce((total, count) => total + count.added, 0);
  const removed = counts.reduce((total, count) => total + count.removed, 0);
  const list = files.map(
    (file, index) =>
      html`<li><code>${file.path}</code> <span class="ok">+${counts[index]?.added ?? 0}</span> <span class="bad">−${counts[index]?.removed ?? 0}</span></li>`,
  );
  const title = `${files.length} ${files.length === 1 ? "file" : "files"} changed, +${added} −${removed}`;
  return html`<h4>Diff <span class="meta">${title}</span></h4>
<ul class="diff-files">${list}</ul>
<details class="diff" data-diff="${diff.file}"${lines.length <= OPEN_DIFF_LINES ? html` open` : ""}><summary>The diff (${diff.file})</summary><pre class="diff-text">${lines.map(renderDiffLine)}</pre></details>`;
}

function countLines(file: FileChange): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of file.diff.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++ ")) added++;
    else if (line.startsWith("-") && !line.startsWith("--- ")) removed++;
  }
  return { added, removed };
}

function renderDiffLine(line: string): Html {
  const kind = lineKind(line);
  return kind === undefined ? html`${line}\n` : html`<span class="${kind}">${line}</span>\n`;
}

function lineKind(line: string): string | undefined {
  if (line.startsWith("diff --git ") || line.startsWith("+++ ") || line.startsWith("--- ")) {
    return "diff-file";
  }
  if (line.startsWith("@@")) return "diff-hunk";
  if (line.startsWith("+")) return "diff-add";
  if (line.startsWith("-")) return "diff-del";
  if (line.startsWith("[… ")) return "diff-cut";
  return undefined;
}
