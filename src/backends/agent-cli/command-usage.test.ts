import { describe, expect, it } from "vitest";
import { takeUsageLine } from "./command-usage.js";

describe("the command program's usage line (docs/backends.md#command-usage)", () => {
  it("takes the line out of the answer and reads its cost and tokens", () => {
    const stdout = `{"status":"completed"}\n{"usage":{"inputTokens":10,"outputTokens":2},"costUsd":0.5}\n`;
    expect(takeUsageLine(stdout)).toEqual({
      text: `{"status":"completed"}\n`,
      reported: {
        usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheCreationTokens: 0 },
        costUsd: 0.5,
      },
    });
  });

  it("counts the last of several lines, and takes either key alone", () => {
    const { text, reported } = takeUsageLine(`{"costUsd":0.1}\nCOMPLETE\n{"costUsd":0.2}`);
    expect(text).toBe("COMPLETE");
    expect(reported).toEqual({ costUsd: 0.2 });
    expect(takeUsageLine(`{"usage":{"outputTokens":3}}`).reported.usage?.outputTokens).toBe(3);
  });

  it("leaves any other line in the answer: other keys, negative or non-numeric values, bad JSON", () => {
    for (const line of [
      `{"costUsd":0.1,"status":"completed"}`,
      `{"costUsd":-1}`,
      `{"costUsd":"0.1"}`,
      `{"usage":{"inputTokens":1,"dollars":2}}`,
      `{"usage":{"inputTokens":-5}}`,
      `{"costUsd":0.1`,
      `{}`,
    ]) {
      expect(takeUsageLine(line)).toEqual({ text: line, reported: {} });
    }
  });
});
