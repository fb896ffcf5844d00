/**
 * The report's charts as inline SVG built here (docs/report.md#charts): nothing to load when the
 * file is opened, and every label goes through `html`. Cost when a query of the run has a price,
 * else tokens.
 */
import type { ReasonTotal, Receipt } from "../run-view.js";
import { type Html, html } from "./html.js";
import {
  BAR_HEIGHT,
  CHART_WIDTH,
  coordinate,
  LABEL_WIDTH,
  PLOT,
  ROW_HEIGHT,
  renderChart,
  renderTicks,
  shortLabel,
  VALUE_WIDTH,
} from "./report-chart-parts.js";
import { formatCost } from "./report-format.js";
import {
  renderTokensByReasonChart,
  renderTokensOverIterationsChart,
  totalTokens,
} from "./report-token-charts.js";

/** What the charts draw: cost when a query has a price, else tokens, else nothing. */
export function chartMeasure(receipts: readonly Receipt[]): "cost" | "tokens" | "none" {
  if (receipts.some((receipt) => Number.isFinite(receipt.costUsd) && receipt.costUsd > 0)) {
    return "cost";
  }
  return receipts.some((receipt) => totalTokens(receipt.usage) > 0) ? "tokens" : "none";
}

/** The first chart: the cost (or the tokens) of each reason a query was sent. */
export function renderByReasonChart(
  totals: readonly ReasonTotal[],
  receipts: readonly Receipt[],
): Html {
  if (totals.length === 0) {
    return html`<p class="empty" data-chart="cost-by-reason">No backend queries on record.</p>`;
  }
  const measure = chartMeasure(receipts);
  if (measure === "tokens") return renderTokensByReasonChart(totals);
  if (measure === "none") {
    return html`<p class="empty" data-chart="cost-by-reason">No cost and no tokens on record.</p>`;
  }
  return renderCostByReasonChart(totals);
}

/** The second chart: the cost (or the tokens) of each iteration. */
export function renderOverIterationsChart(receipts: readonly Receipt[], iterations: number): Html {
  const measure = chartMeasure(receipts);
  if (measure === "tokens") return renderTokensOverIterationsChart(receipts, iterations);
  if (measure === "none" && iterations > 0) {
    return html`<p class="empty" data-chart="cost-over-iterations">No cost and no tokens on record.</p>`;
  }
  return renderCostOverIterationsChart(receipts, iterations);
}

/** One bar per reason a query was sent (the receipts' reasons), as long as its cost. */
export function renderCostByReasonChart(totals: readonly ReasonTotal[]): Html {
  if (totals.length === 0) {
    return html`<p class="empty" data-chart="cost-by-reason">No backend queries on record.</p>`;
  }
  const maxCost = Math.max(...totals.map((total) => total.costUsd), 0);
  const plotWidth = CHART_WIDTH - LABEL_WIDTH - VALUE_WIDTH;
  const height = totals.length * ROW_HEIGHT + 10;
  const rows = totals.map((total, index) => {
    const y = index * ROW_HEIGHT + 6;
    const barWidth = maxCost > 0 ? (total.costUsd / maxCost) * plotWidth : 0;
    const queries = `${total.queries} ${total.queries === 1 ? "query" : "queries"}`;
    return html`<g class="bar-row">
<text x="${coordinate(LABEL_WIDTH - 8)}" y="${coordinate(y + BAR_HEIGHT - 4)}" text-anchor="end" class="label">${shortLabel(total.reason)}<title>${total.reason}</title></text>
<rect x="${coordinate(LABEL_WIDTH)}" y="${coordinate(y)}" width="${coordinate(barWidth)}" height="${BAR_HEIGHT}" class="bar"><title>${total.reason}: ${formatCost(total.costUsd)}, ${queries}</title></rect>
<text x="${coordinate(LABEL_WIDTH + barWidth + 6)}" y="${coordinate(y + BAR_HEIGHT - 4)}" class="value">${formatCost(total.costUsd)} · ${total.queries}×</text>
</g>`;
  });
  return renderChart({ name: "cost-by-reason", label: "Cost by reason", height }, html`${rows}`, [
    { mark: "bar", label: "cost of the queries sent for the reason (× queries)" },
  ]);
}

/** The cost after each iteration, summed from the receipts; iteration 0 is the start. */
export function cumulativeCostByIteration(
  receipts: readonly Receipt[],
  iterations: number,
): number[] {
  const last = Math.max(iterations, ...receipts.map((receipt) => receipt.iteration), 0);
  const own = Array.from({ length: last + 1 }, () => 0);
  for (const receipt of receipts) {
    const index = Math.min(Math.max(receipt.iteration, 0), last);
    own[index] = (own[index] ?? 0) + (Number.isFinite(receipt.costUsd) ? receipt.costUsd : 0);
  }
  let sum = 0;
  return own.map((cost) => {
    sum += cost;
    return sum;
  });
}

/** The run's cost so far after each iteration (a line), over each iteration's own cost (bars). */
export function renderCostOverIterationsChart(
  receipts: readonly Receipt[],
  iterations: number,
): Html {
  const cumulative = cumulativeCostByIteration(receipts, iterations);
  const last = cumulative.length - 1;
  if (last < 1) {
    return html`<p class="empty" data-chart="cost-over-iterations">No iterations on record.</p>`;
  }
  const total = cumulative[last] ?? 0;
  const yMax = total > 0 ? total : 1;
  const plotWidth = CHART_WIDTH - PLOT.left - PLOT.right;
  const x = (iteration: number) => PLOT.left + (iteration / last) * plotWidth;
  const y = (cost: number) => PLOT.top + PLOT.height - (cost / yMax) * PLOT.height;
  const points = cumulative.map(
    (cost, iteration) => `${coordinate(x(iteration))},${coordinate(y(cost))}`,
  );
  const line = `M${points.join(" L")}`;
  const area = `${line} L${coordinate(x(last))},${coordinate(y(0))} L${coordinate(x(0))},${coordinate(y(0))} Z`;
  const barWidth = Math.max(Math.min((plotWidth / last) * 0.5, 2 * (PLOT.right - 4)), 2);
  const bars = cumulative.slice(1).map((cost, index) => {
    const iteration = index + 1;
    const own = cost - (cumulative[index] ?? 0);
    return html`<rect class="iteration-bar" x="${coordinate(x(iteration) - barWidth / 2)}" y="${coordinate(y(own))}" width="${coordinate(barWidth)}" height="${coordinate(y(0) - y(own))}"><title>iteration ${iteration}: ${formatCost(own)} (run so far ${formatCost(cost)})</title></rect>`;
  });
  const dots = cumulative.map(
    (cost, iteration) =>
      html`<circle class="point" cx="${coordinate(x(iteration))}" cy="${coordinate(y(cost))}" r="3.5"><title>after iteration ${iteration}: ${formatCost(cost)}</title></circle>`,
  );
  const ticks = renderTicks(last, x, y(0) + 18);
  const height = PLOT.top + PLOT.height + PLOT.bottom;
  const body = html`<line class="axis" x1="${PLOT.left}" y1="${coordinate(y(0))}" x2="${coordinate(x(last) + barWidth / 2)}" y2="${coordinate(y(0))}"/>
<line class="axis" x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${coordinate(y(0))}"/>
<text class="tick" x="${PLOT.left - 6}" y="${coordinate(y(0) + 4)}" text-anchor="end">${formatCost(0)}</text>
${total > 0 ? html`<text class="tick" x="${PLOT.left - 6}" y="${coordinate(y(total) + 4)}" text-anchor="end">${formatCost(total)}</text>` : ""}
<text class="tick" x="${coordinate(PLOT.left + plotWidth / 2)}" y="${height - 2}" text-anchor="middle">iteration</text>
${bars}
<path class="area" d="${area}"/>
<path class="line" d="${line}"/>
${dots}${ticks}`;
  return renderChart(
    { name: "cost-over-iterations", label: "Cost over iterations", height },
    body,
    [
      { mark: "iteration-bar", label: "the iteration's cost" },
      { mark: "line", label: "the run's cost so far", line: true },
    ],
  );
}
