/** What the report's charts share (docs/report.md#charts): their size, coordinates, labels and legends. */
import { type Html, html } from "./html.js";

/** The width of every chart's drawing; the page scales it to its column. */
export const CHART_WIDTH = 560;
export const LABEL_WIDTH = 150;
export const VALUE_WIDTH = 150;
export const ROW_HEIGHT = 30;
export const BAR_HEIGHT = 18;
export const PLOT = { left: 64, right: 36, top: 12, bottom: 34, height: 200 } as const;

/** Two decimals are enough for a coordinate, and keep the markup short. */
export function coordinate(value: number): string {
  return Number.isFinite(value) ? String(Math.round(value * 100) / 100) : "0";
}

const LABEL_CHARACTERS = 18;

/** A label that fits left of the bars; the whole text stays in the bar's title. */
export function shortLabel(text: string): string {
  return text.length <= LABEL_CHARACTERS ? text : `${text.slice(0, LABEL_CHARACTERS - 1)}…`;
}

/** One entry of a legend: the class its marks are drawn with, and what they stand for. */
export interface LegendEntry {
  readonly mark: string;
  readonly label: string;
  /** A line rather than a box. */
  readonly line?: boolean;
}

export function renderLegend(chart: string, entries: readonly LegendEntry[]): Html {
  const items = entries.map(
    (entry) =>
      html`<li><span class="swatch ${entry.line === true ? "swatch-line" : "swatch-box"} ${entry.mark}"></span>${entry.label}</li>`,
  );
  return html`<ul class="legend" data-legend="${chart}">${items}</ul>`;
}

/** An SVG chart: its drawing scales to the column, its legend below it. */
export function renderChart(
  chart: { readonly name: string; readonly label: string; readonly height: number },
  body: Html,
  legend: readonly LegendEntry[],
): Html {
  return html`<figure class="chart-figure"><svg class="chart" data-chart="${chart.name}" role="img" aria-label="${chart.label}" viewBox="0 0 ${CHART_WIDTH} ${coordinate(chart.height)}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">${body}</svg>${renderLegend(chart.name, legend)}</figure>`;
}

/** Tick labels under a plot of `last + 1` positions, at most about 12 of them. */
export function renderTicks(last: number, x: (position: number) => number, y: number): Html[] {
  const step = Math.max(1, Math.ceil(last / 12));
  return Array.from({ length: last + 1 }, (_, position) => position)
    .filter((position) => position % step === 0 || position === last)
    .map(
      (position) =>
        html`<text class="tick" x="${coordinate(x(position))}" y="${coordinate(y)}" text-anchor="middle">${position}</text>`,
    );
}
