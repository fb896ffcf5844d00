/**
 * How `closer queue --watch` shows the queue (docs/queue.md#queue-watch): in a
 * terminal the view is redrawn in place at every tick; without one it is
 * printed, under a timestamp line, only when it changed, so it can be logged.
 */

export interface WatchScreenOptions {
  readonly write: (text: string) => void;
  /** stdout is a terminal: redraw in place. */
  readonly live: boolean;
  /** The terminal's width now: longer lines are cut, so every line takes one row. */
  readonly columns?: () => number | undefined;
  /** Seconds between ticks, for the header line. */
  readonly intervalSeconds: number;
}

export interface WatchScreen {
  /** The queue's view at `now` (the table, or why it cannot be read). */
  show(view: string, now: Date): void;
}

export function makeWatchScreen(options: WatchScreenOptions): WatchScreen {
  let rowsDrawn = 0;
  let lastView: string | undefined;
  const cutToWidth = (line: string, columns: number | undefined) =>
    // A terminal that gives no width (0) is taken as wide.
    columns !== undefined && columns > 10 && line.length >= columns
      ? `${line.slice(0, columns - 2)}…`
      : line;
  return {
    show(view, now) {
      if (!options.live) {
        if (view === lastView) return;
        lastView = view;
        options.write(`closer queue at ${now.toISOString()}\n${view}\n`);
        return;
      }
      const header = `closer queue · ${now.toLocaleTimeString("en-GB")} · every ${options.intervalSeconds}s · Ctrl-C to stop`;
      const columns = options.columns?.();
      const lines = [header, ...view.split("\n")].map((line) => cutToWidth(line, columns));
      // Back to the first row of the last frame, erase to the end of the screen, draw again.
      const back = rowsDrawn === 0 ? "" : `\x1b[${rowsDrawn}F\x1b[J`;
      options.write(`${back}${lines.join("\n")}\n`);
      rowsDrawn = lines.length;
    },
  };
}
