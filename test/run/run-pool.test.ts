import { describe, expect, it } from "vitest";
import { makeSerializer, runPool } from "../../src/run/index.js";

describe("runPool", () => {
  it("runs at most `limit` items at once and keeps the items' order", async () => {
    let running = 0;
    let most = 0;
    const results = await runPool([30, 10, 20, 5, 15], 2, async (delayMs, index) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      running -= 1;
      return `${index}:${delayMs}`;
    });
    expect(results).toEqual(["0:30", "1:10", "2:20", "3:5", "4:15"]);
    expect(most).toBe(2);
  });

  it("finishes every item even when one throws, then throws the error", async () => {
    const done: number[] = [];
    const run = runPool([1, 2, 3], 1, async (item) => {
      if (item === 1) throw new Error("first fails");
      done.push(item);
      return item;
    });
    await expect(run).rejects.toThrow("first fails");
    expect(done).toEqual([2, 3]);
  });

  it("handles an empty list", async () => {
    expect(await runPool([], 3, async () => 1)).toEqual([]);
  });
});

describe("makeSerializer", () => {
  it("runs one task at a time, in order, even after a failure", async () => {
    const serialize = makeSerializer();
    const log: string[] = [];
    const task = (name: string, delayMs: number, fail = false) =>
      serialize(async () => {
        log.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([task("a", 20, true), task("b", 5), task("c", 1)]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });
});
