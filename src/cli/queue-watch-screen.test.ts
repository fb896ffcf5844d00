import { describe, expect, it } from "vitest";
import { watchIntervalSeconds } from "./actions/queue-watch.js";
import { makeWatchScreen } from "./queue-watch-screen.js";

const at = (second: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, second));

describe("docs/queue.md#queue-watch closer queue --watch", () => {
  it("without a terminal prints the view under a timestamp only when it changed", () => {
    const written: string[] = [];
    const screen = makeWatchScreen({
      write: (text) => written.push(text),
      live: false,
      intervalSeconds: 2,
    });
    screen.show("no jobs", at(0));
    screen.show("no jobs", at(2));
    screen.show("job 1 waiting", at(4));
    expect(written).toEqual([
      "closer queue at 2030-01-01T12:00:00.000Z\nno jobs\n",
      "closer queue at 2030-01-01T12:00:04.000Z\njob 1 waiting\n",
    ]);
  });

  it("in a terminal redraws in place: back over the last frame's rows, lines cut to the width", () => {
    const written: string[] = [];
    const screen = makeWatchScreen({
      write: (text) => written.push(text),
      live: true,
      columns: () => 20,
      intervalSeconds: 2,
    });
    screen.show("a\nb", at(0));
    screen.show("a", at(2));
    expect(written[0]).not.toContain("\x1b[");
    expect(written[0]?.split("\n")).toHaveLength(4);
    expect(written[1]?.startsWith("\x1b[3F\x1b[J")).toBe(true);
    for (const line of (written[1] ?? "").split("\n")) expect(line.length).toBeLessThanOrEqual(27);
  });

  it("--interval takes seconds, 2 by default; anything else is refused naming the fix", () => {
    expect(watchIntervalSeconds(undefined)).toBe(2);
    expect(watchIntervalSeconds("0.5")).toBe(0.5);
    expect(() => watchIntervalSeconds("soon")).toThrow(/--interval must be a number of seconds/);
    expect(() => watchIntervalSeconds("0")).toThrow(/--interval/);
  });
});
