import { describe, expect, it } from "vitest";
import { hasEnded } from "./ended-run.js";

describe("docs/record.md#resume which runs are ended and which interrupted", () => {
  it.each([
    "completed",
    "max_iterations",
    "retries_exhausted",
    "budget_exhausted",
    "blocked",
    "skipped",
  ])("%s is an end no resume reopens", (status) => {
    expect(hasEnded(status)).toBe(true);
  });

  it.each(["running", "aborted", "error"])("%s is an interruption, resumed", (status) => {
    expect(hasEnded(status)).toBe(false);
  });
});
