/**
 * The report's two charts as inline SVG built here (docs/report.md#charts):
 * nothing to load when the file is opened, and every label goes through `html`.
 */
import type { ReasonTotal, Receipt } from "../run-view.js";
import { type Html, html } from "./html.js";
import { formatCost } from "./report-format.js";

const WIDTH = 720;
const LABEL_WIDTH = 210;
const VALUE_WIDTH = 170;
const ROW_HEIGHT = 30;
const BAR_HEIGHT = 18;

/** Two decimals are enough for a coordinate, and keep the markup short. */
function coordinate(value: number): string {
  return Number.isFinite(value) ? String(Math.round(value * 100) / 100) : "0";
}

const LABEL_CHARACTERS = 30;

/** A label that fits left of the bars; the whole text stays in the bar's title. */
function shortLabel(text: string): string {
  return text.length <= LABEL_CHARACTERS ? text : `${text.slice(0, LABEL_CHARACTERS - 1)}…`;
}

/** One bar per reason a query was sent (the receipts' reasons), as long as its cost. */
export function renderCostByReasonChart(totals: readonly ReasonTotal[]): Html {
  if (totals.length === 0) {
    return html`<p class="empty" data-chart="cost-by-reason">No backend queries on record.</p>`;
  }
  const maxCost = Math.max(...totals.map((total) => total.costUsd), 0);
  const plotWidth = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
  const height = totals.length * ROW_HEIGHT + 10;
  const rows = totals.map((total, index) => {
    const y = index * ROW_HEIGHT + 6;
    const barWidth = maxCost > 0 ? (total.costUsd / maxCost) * plotWidth : 0;
    const queries = `${total.queries} ${total.queries === 1 ? "query" : "queries"}`;
    return html`<g class="bar-row">
<text x="${coordinate(LABEL_WIDTH - 8)}" y="${coordinate(y + BAR_HEIGHT - 4)}" text-anchor="end" class="label">${shortLabel(total.reason)}</text>
<rect x="${coordinate(LABEL_WIDTH)}" y="${coordinate(y)}" width="${coordinate(barWidth)}" height="${BAR_HEIGHT}" class="bar"><title>${total.reason}: ${formatCost(total.costUsd)}, ${queries}</title></rect>
<text x="${coordinate(LABEL_WIDTH + barWidth + 6)}" y="${coordinate(y + BAR_HEIGHT - 4)}" class="value">${formatCost(total.costUsd)} · ${queries}</text>
</g>`;
  });
  return html`<svg class="chart" data-chart="cost-by-reason" role="img" aria-label="Cost by reason" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" xmlns="http://www.w3.org/2000/svg">${rows}</svg>`;
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

const PLOT = { left: 70, right: 40, top: 16, bottom: 34, height: 220 } as const;

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
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const x = (iteration: number) => PLOT.left + (iteration / last) * plotWidth;
  const y = (cost: number) => PLOT.top + PLOT.height - (cost / yMax) * PLOT.height;
  const points = cumulative.map(
    (cost, iteration) => `${coordinate(x(iteration))},${coordinate(y(cost))}`,
  );
  const line = `M${points.join(" L")}`;
  const area = `${line} L${coordinate(x(last))},${coordinate(y(0))} L${coordinate(x(0))},${coordinate(y(0))} Z`;
  const barWidth = Math.max(Math.min((plotWidth / last) * 0.5, 40), 2);
  const bars = cumulative.slice(1).map((cost, index) => {
    const iteration = index + 1;
    const own = cost - (cumulative[index] ?? 0);
    return html`<rect class="iteration-bar" x="${coordinate(x(iteration) - barWidth / 2)}" y="${coordinate(y(own))}" width="${coordinate(barWidth)}" height="${coordinate(y(0) - y(own))}"><title>iteration ${iteration}: ${formatCost(own)} (run so far ${formatCost(cost)})</title></rect>`;
  });
  const dots = cumulative.map(
    (cost, iteration) =>
      html`<circle class="point" cx="${coordinate(x(iteration))}" cy="${coordinate(y(cost))}" r="3.5"><title>after iteration ${iteration}: ${formatCost(cost)}</title></circle>`,
  );
  const step = Math.max(1, Math.ceil(last / 12));
  const ticks = cumulative
    .map((_, iteration) => iteration)
    .filter((iteration) => iteration % step === 0 || iteration === last)
    .map(
      (iteration) =>
        html`<text class="tick" x="${coordinate(x(iteration))}" y="${coordinate(y(0) + 18)}" text-anchor="middle">${iteration}</text>`,
    );
  const height = PLOT.top + PLOT.height + PLOT.bottom;
  return html`<svg class="chart" data-chart="cost-over-iterations" role="img" aria-label="Cost over iterations" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" xmlns="http://www.w3.org/2000/svg">
<line class="axis" x1="${PLOT.left}" y1="${coordinate(y(0))}" x2="${coordinate(x(last) + barWidth / 2)}" y2="${coordinate(y(0))}"/>
<line class="axis" x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${coordinate(y(0))}"/>
<text class="tick" x="${PLOT.left - 6}" y="${coordinate(y(0) + 4)}" text-anchor="end">${formatCost(0)}</text>
${total > 0 ? html`<text class="tick" x="${PLOT.left - 6}" y="${coordinate(y(total) + 4)}" text-anchor="end">${formatCost(total)}</text>` : ""}
<text class="tick" x="${coordinate(PLOT.left + plotWidth / 2)}" y="${height - 2}" text-anchor="middle">iteration</text>
${bars}
<path class="area" d="${area}"/>
<path class="line" d="${line}"/>
${dots}${ticks}
</svg>`;
}
