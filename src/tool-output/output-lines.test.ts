import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { joinOutput, splitOutputLines, stripAnsi } from "./output-lines.js";

describe("stripAnsi", () => {
  it("removes colors, cursor moves and hyperlinks", () => {
    const text =
      "\u001b[31m\u001b[1mFAIL\u001b[22m\u001b[39m \u001b]8;;https://example.com\u001b\\link\u001b]8;;\u001b\\ \u001b]8;;x\u0007y\u001b]8;;\u0007\u001b[2K\u001b[1Gdone";
    expect(stripAnsi(text)).toBe("FAIL link ydone");
  });

  it("leaves text without escapes unchanged", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(!text.includes("\u001b") && !text.includes("\u009b"));
        expect(stripAnsi(text)).toBe(text);
      }),
    );
  });
});

describe("splitOutputLines", () => {
  it("normalizes CRLF and keeps the last state of a redrawn line", () => {
    expect(splitOutputLines("a\r\nprogress 1%\rprogress 100%\nb")).toEqual([
      "a",
      "progress 100%",
      "b",
    ]);
  });

  it("cuts very long lines", () => {
    expect(splitOutputLines("x".repeat(50), 10)).toEqual(["x".repeat(10)]);
  });
});

describe("joinOutput", () => {
  it("puts stdout before stderr with one line break between them", () => {
    expect(joinOutput("out", "err")).toBe("out\nerr");
    expect(joinOutput("out\n", "err")).toBe("out\nerr");
    expect(joinOutput("", "err")).toBe("err");
    expect(joinOutput("out", "")).toBe("out");
  });
});
