/**
 * What is under way, kept in view (docs/observe.md#live-view): in a terminal a
 * status line redrawn in place under the last line written; without one a
 * heartbeat line whenever nothing was written for `heartbeatMs`, so a log that
 * a CI system watches never goes quiet while the model or a check works.
 */

/** The heartbeat's default: CI systems stop jobs that print nothing for 10 minutes. */
export const DEFAULT_HEARTBEAT_MS = 60_000;

const REDRAW_MS = 250;

export interface StatusOptions {
  readonly write: (text: string) => void;
  /** An interactive terminal: the status line is drawn in place. */
  readonly live: boolean;
  readonly heartbeatMs: number;
  /** Paints the status text (dim in a colour terminal). */
  readonly paint: (text: string) => string;
}

export interface Status {
  /** Writes a whole line, with the status line (or the heartbeat) kept after it. */
  line(text: string): void;
  /** What is under way now, as a text that may change as time passes; undefined: nothing. */
  show(text: (() => string) | undefined): void;
  /** Stops drawing and forgets what was under way. */
  stop(): void;
}

export function makeStatus(options: StatusOptions): Status {
  let current: (() => string) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let drawn = false;

  const erase = () => {
    if (!drawn) return;
    options.write("\r\x1b[2K");
    drawn = false;
  };
  const draw = () => {
    if (current === undefined) return;
    options.write(`\r\x1b[2K${options.paint(current())}`);
    drawn = true;
  };
  const disarm = () => {
    clearTimeout(timer);
    clearInterval(timer);
    timer = undefined;
  };
  const heartbeat = () => {
    if (current === undefined) return;
    options.write(`${current()}\n`);
    arm();
  };
  /** The redraw ticker in a terminal; otherwise the heartbeat, counted from the last line. */
  const arm = () => {
    disarm();
    if (current === undefined) return;
    if (options.live) {
      draw();
      timer = setInterval(draw, REDRAW_MS);
    } else {
      timer = setTimeout(heartbeat, options.heartbeatMs);
    }
    timer.unref();
  };

  return {
    line(text) {
      erase();
      options.write(`${text}\n`);
      arm();
    },
    show(text) {
      current = text;
      if (text === undefined) {
        disarm();
        erase();
      } else if (options.live) {
        arm();
      } else if (timer === undefined) {
        arm();
      }
    },
    stop() {
      current = undefined;
      disarm();
      erase();
    },
  };
}
