/**
 * The report's charts of tokens, drawn instead of cost when no query of the run has a price
 * (docs/report.md#charts): a model served without one is charted by what it read and wrote.
 */
import type { ReasonTotal, Receipt, TokenUsage } from "../run-view.js";
import { type Html, html } from "./html.js";
import {
  BAR_HEIGHT,
  CHART_WIDTH,
  coordinate,
  LABEL_WIDTH,
  type LegendEntry,
  PLOT,
  ROW_HEIGHT,
  renderChart,
  renderTicks,
  shortLabel,
  VALUE_WIDTH,
} from "./report-chart-parts.js";
import { formatCount } from "./report-format.js";

const KINDS = [
  { key: "inputTokens", mark: "tokens-input", label: "input" },
  { key: "outputTokens", mark: "tokens-output", label: "output" },
  { key: "cacheReadTokens", mark: "tokens-cache-read", label: "cache read" },
  { key: "cacheCreationTokens", mark: "tokens-cache-written", label: "cache written" },
] as const;

const LEGEND: readonly LegendEntry[] = KINDS.map(({ mark, label }) => ({ mark, label }));

export function totalTokens(usage: TokenUsage): number {
  return KINDS.reduce((total, kind) => total + finite(usage[kind.key]), 0);
}

function finite(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/** The parts of a bar of `usage`, each as long as its tokens at `scale` per token. */
function stackedParts(
  usage: TokenUsage,
  scale: number,
  place: (offset: number, length: number, mark: string, title: string) => Html,
): Html[] {
  let offset = 0;
  return KINDS.flatMap((kind) => {
    const tokens = finite(usage[kind.key]);
    if (tokens === 0) return [];
    const part = place(offset, tokens * scale, kind.mark, `${formatCount(tokens)} ${kind.label}`);
    offset += tokens * scale;
    return [part];
  });
}

/** One stacked bar per reason a query was sent, as long as its tokens. */
export function renderTokensByReasonChart(totals: readonly ReasonTotal[]): Html {
  const most = Math.max(...totals.map((total) => totalTokens(total.usage)), 0);
  const plotWidth = CHART_WIDTH - LABEL_WIDTH - VALUE_WIDTH;
  const scale = most > 0 ? plotWidth / most : 0;
  const rows = totals.map((total, index) => {
    const y = index * ROW_HEIGHT + 6;
    const tokens = totalTokens(total.usage);
    const parts = stackedParts(
      total.usage,
      scale,
      (offset, length, mark, title) =>
        html`<rect class="${mark}" x="${coordinate(LABEL_WIDTH + offset)}" y="${coordinate(y)}" width="${coordinate(length)}" height="${BAR_HEIGHT}"><title>${total.reason}: ${title}</title></rect>`,
    );
    return html`<g class="bar-row">
<text x="${coordinate(LABEL_WIDTH - 8)}" y="${coordinate(y + BAR_HEIGHT - 4)}" text-anchor="end" class="label">${shortLabel(total.reason)}<title>${total.reason}</title></text>
${parts}
<text x="${coordinate(LABEL_WIDTH + tokens * scale + 6)}" y="${coordinate(y + BAR_HEIGHT - 4)}" class="value">${formatCount(tokens)} · ${total.queries}×</text>
</g>`;
  });
  const height = totals.length * ROW_HEIGHT + 10;
  return renderChart(
    { name: "tokens-by-reason", label: "Tokens by reason", height },
    html`${rows}`,
    LEGEND,
  );
}

/** The tokens of each iteration, a stacked bar each. */
export function renderTokensOverIterationsChart(
  receipts: readonly Receipt[],
  iterations: number,
): Html {
  const last = Math.max(iterations, ...receipts.map((receipt) => receipt.iteration), 0);
  const usages = Array.from({ length: last + 1 }, (_, iteration) =>
    receipts.filter((receipt) => receipt.iteration === iteration).map((receipt) => receipt.usage),
  );
  const sums = usages.map((list) => sumOf(list));
  const most = Math.max(...sums.map(totalTokens), 0);
  const plotWidth = CHART_WIDTH - PLOT.left - PLOT.right;
  const slot = plotWidth / Math.max(last, 1);
  const x = (iteration: number) => PLOT.left + (iteration - 0.5) * slot;
  const base = PLOT.top + PLOT.height;
  const scale = most > 0 ? PLOT.height / most : 0;
  const barWidth = Math.max(Math.min(slot * 0.6, 40), 2);
  const bars = sums
    .slice(1)
    .map((usage, index) =>
      stackedParts(
        usage,
        scale,
        (offset, length, mark, title) =>
          html`<rect class="${mark}" x="${coordinate(x(index + 1) - barWidth / 2)}" y="${coordinate(base - offset - length)}" width="${coordinate(barWidth)}" height="${coordinate(length)}"><title>iteration ${index + 1}: ${title}</title></rect>`,
      ),
    );
  const ticks = renderTicks(last, x, base + 18).slice(1);
  const height = PLOT.top + PLOT.height + PLOT.bottom;
  const body = html`<line class="axis" x1="${PLOT.left}" y1="${coordinate(base)}" x2="${coordinate(PLOT.left + plotWidth)}" y2="${coordinate(base)}"/>
<line class="axis" x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${coordinate(base)}"/>
<text class="tick" x="${PLOT.left - 6}" y="${coordinate(base + 4)}" text-anchor="end">0</text>
${most > 0 ? html`<text class="tick" x="${PLOT.left - 6}" y="${coordinate(PLOT.top + 4)}" text-anchor="end">${formatCount(most)}</text>` : ""}
<text class="tick" x="${coordinate(PLOT.left + plotWidth / 2)}" y="${height - 2}" text-anchor="middle">iteration</text>
${bars}${ticks}`;
  return renderChart(
    { name: "tokens-over-iterations", label: "Tokens over iterations", height },
    body,
    LEGEND,
  );
}

function sumOf(usages: readonly TokenUsage[]): TokenUsage {
  const total = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
  for (const usage of usages) for (const kind of KINDS) total[kind.key] += finite(usage[kind.key]);
  return total;
}
