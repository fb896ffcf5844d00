/** The report's timeline: one entry per iteration, in order (docs/report.md#report). */
import type { RecordedText } from "../../record/run-folder-reader.js";
import type {
  CheckView,
  DeclarationView,
  IterationView,
  PromptView,
  Receipt,
  RetryView,
} from "../run-view.js";
import { type Html, html } from "./html.js";
import { formatCost, formatCount, formatDuration, formatTokens } from "./report-format.js";
import { renderQuote } from "./report-quote.js";
import { renderDiff, renderSummary, renderToolCalls } from "./report-work.js";

/** The prompts as sent, by their path in the run folder (`prompts/iteration-003.md`). */
export type PromptTexts = Readonly<Record<string, string>>;

/** The run folder's texts the report shows beside the view. */
export interface ReportTexts {
  /** The prompts as sent, by their path in the run folder (`PromptView.file`). */
  readonly prompts: PromptTexts;
  /** What the model said it did, by iteration: its declaration's summary, else its final text. */
  readonly summaries?: Readonly<Record<number, string>>;
  /** What each iteration changed in the work tree, by iteration (docs/record.md#diffs). */
  readonly diffs?: Readonly<Record<number, RecordedText>>;
}

export function renderTimeline(timeline: readonly IterationView[], texts: ReportTexts): Html {
  if (timeline.length === 0) return html`<p class="empty">No iterations on record.</p>`;
  const entries = timeline.map((iteration, index) =>
    renderIteration(iteration, { next: timeline[index + 1], texts }),
  );
  return html`<ol class="timeline">${entries}</ol>`;
}

function iterationClass(iteration: IterationView): string {
  if (iteration.checks.some((check) => !check.valid)) return "iteration failed";
  if (iteration.checks.length > 0) return "iteration passed";
  return "iteration";
}

function renderIteration(
  iteration: IterationView,
  context: { next: IterationView | undefined; texts: ReportTexts },
): Html {
  const { prompts, summaries, diffs } = context.texts;
  const attempt = iteration.attempt > 1 ? ` · attempt ${iteration.attempt} (resumed)` : "";
  return html`<li class="${iterationClass(iteration)}" data-iteration="${iteration.iteration}" id="iteration-${iteration.iteration}">
<h3>Iteration ${iteration.iteration} <span class="meta">step ${iteration.step}${attempt}</span></h3>
${renderSummary(summaries?.[iteration.iteration])}
${renderPrompt(iteration.prompt, prompts)}
${renderReceipts(iteration.receipts)}
${renderToolCalls(iteration.toolCalls)}
${renderDiff(diffs?.[iteration.iteration])}
${renderDeclaration(iteration.declaration, iteration.format)}
${renderChecks(iteration.checks)}
${renderRetry(iteration.retry, context.next, prompts)}
${renderWarnings(iteration.warnings)}
</li>`;
}

function renderPromptText(prompt: PromptView, prompts: PromptTexts, summary: string): Html {
  const text = prompts[prompt.file];
  if (text === undefined)
    return html`<p class="empty">${prompt.file} is not in the run folder.</p>`;
  return html`<details class="prompt-text"><summary>${summary} (${prompt.file})</summary><pre>${text}</pre></details>`;
}

function renderPrompt(prompt: PromptView | undefined, prompts: PromptTexts): Html {
  if (prompt === undefined) return html`<p class="empty">No prompt on record.</p>`;
  return html`<h4>Prompt</h4>
<p class="prompt"><strong>${prompt.kind}</strong> · <code>${prompt.templatePath}</code> · ${formatCount(prompt.chars)} characters</p>
${renderPromptText(prompt, prompts, "The prompt as sent")}`;
}

function renderReceipts(receipts: readonly Receipt[]): Html {
  if (receipts.length === 0) return html`<h4>Queries</h4><p class="empty">No query on record.</p>`;
  const rows = receipts.map(
    (receipt) =>
      html`<tr class="receipt"><td>${receipt.reason}</td><td>${formatDuration(receipt.durationMs)}</td><td>${formatCost(receipt.costUsd)}</td><td>${formatTokens(receipt.usage)}</td><td class="bad">${receipt.error ?? ""}</td></tr>`,
  );
  return html`<h4>Queries</h4>
<table class="receipts"><tr><th>reason</th><th>time</th><th>cost</th><th>tokens</th><th>error</th></tr>${rows}</table>`;
}

function renderDeclaration(
  declaration: DeclarationView | undefined,
  format: IterationView["format"],
): Html {
  const formatLine =
    format === undefined || format.valid
      ? html``
      : html`<p class="bad">The answer's format was refused: ${format.error ?? "no reason given"}</p>`;
  if (declaration === undefined)
    return html`<h4>Declaration</h4><p class="empty">None.</p>${formatLine}`;
  const facts = [
    declaration.status === undefined ? undefined : html`<li>status: ${declaration.status}</li>`,
    declaration.reason === undefined ? undefined : html`<li>reason: ${declaration.reason}</li>`,
    declaration.blockedReason === undefined
      ? undefined
      : html`<li>blocked: ${declaration.blockedReason}</li>`,
  ];
  return html`<h4>Declaration</h4>
<p class="declaration"><strong>${declaration.decision}</strong> <span class="meta">through ${declaration.source}</span></p>
<ul>${facts}</ul>${formatLine}`;
}

function renderCheck(check: CheckView): Html {
  const facts = [
    check.kind === "validator" ? undefined : check.kind,
    check.pattern === undefined ? undefined : `pattern ${check.pattern}`,
    check.exitCode === undefined ? undefined : `exit ${check.exitCode}`,
    check.cached === true ? "cached" : undefined,
    check.durationMs === undefined || check.cached === true
      ? undefined
      : formatDuration(check.durationMs),
  ].filter((fact) => fact !== undefined);
  const output = renderQuote(
    check.quoted,
    check.output,
    check.quoted === undefined ? "What it found" : "All it printed",
  );
  return html`<li class="check ${check.valid ? "ok" : "bad"}" data-check="${check.name}" data-valid="${String(check.valid)}"><span class="mark">${check.valid ? "✓" : "✗"}</span>${check.name} <span class="meta">${facts.join(" · ")}</span>${output}</li>`;
}

function renderChecks(checks: readonly CheckView[]): Html {
  if (checks.length === 0) return html``;
  return html`<h4>Checks</h4><ul class="checks">${checks.map(renderCheck)}</ul>`;
}

function renderRetry(
  retry: RetryView | undefined,
  next: IterationView | undefined,
  prompts: PromptTexts,
): Html {
  if (retry === undefined) return html``;
  const nextPrompt = next?.prompt;
  const text =
    nextPrompt === undefined || nextPrompt.kind === "step"
      ? html`<p class="empty">The retry prompt was not sent.</p>`
      : renderPromptText(
          nextPrompt,
          prompts,
          `The retry prompt, sent in iteration ${next?.iteration}`,
        );
  return html`<h4>Retry</h4>
<p class="retry"><strong>${retry.pattern}</strong> · <code>${retry.templatePath}</code> · attempt ${retry.attempt} of ${retry.maxAttempts}</p>
${text}`;
}

function renderWarnings(warnings: readonly string[]): Html {
  if (warnings.length === 0) return html``;
  return html`<h4>Warnings</h4><ul class="warn">${warnings.map((warning) => html`<li>${warning}</li>`)}</ul>`;
}
