import { describe, expect, it } from "vitest";
import { parseEvery } from "./watch.js";

describe("docs/queue.md#watch --every", () => {
  it("reads minutes, or a number with s, m or h", () => {
    expect(parseEvery("5")).toBe(300_000);
    expect(parseEvery("30s")).toBe(30_000);
    expect(parseEvery("1.5m")).toBe(90_000);
    expect(parseEvery("2h")).toBe(7_200_000);
  });

  it("refuses less than a second and what is not a duration, naming the fix", () => {
    for (const text of ["0", "0.5s", "five", "10d", ""]) {
      expect(() => parseEvery(text), text).toThrow(/--every must be a duration/);
    }
  });
});
