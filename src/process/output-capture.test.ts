import { describe, expect, it } from "vitest";
import { OutputCapture } from "./output-capture.js";

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const collected: string[] = [];
  for await (const line of lines) collected.push(line);
  return collected;
}

describe("OutputCapture", () => {
  it("decodes a character split between chunks, in the text and in the lines", async () => {
    const bytes = Buffer.from("ä€😀\nnext", "utf8");
    const capture = new OutputCapture(1024);
    for (let index = 0; index < bytes.length; index += 1) {
      capture.add(bytes.subarray(index, index + 1));
    }
    capture.end();
    expect(capture.text()).toBe("ä€😀\nnext");
    expect(await collect(capture.lines())).toEqual(["ä€😀", "next"]);
  });

  it("gives every reader all the lines, whenever it starts", async () => {
    const capture = new OutputCapture(1024);
    const early = collect(capture.lines());
    capture.add(Buffer.from("one\r\ntwo\n"));
    const middle = collect(capture.lines());
    capture.add(Buffer.from("three"));
    capture.end();
    const late = collect(capture.lines());
    for (const reader of [early, middle, late]) {
      expect(await reader).toEqual(["one", "two", "three"]);
    }
  });

  it("keeps at most maxBytes and drops the rest", () => {
    const capture = new OutputCapture(5);
    capture.add(Buffer.from("abc"));
    capture.add(Buffer.from("defg"));
    capture.add(Buffer.from("h"));
    expect(capture.text()).toBe("abcde");
  });

  it("is empty when nothing came", async () => {
    const capture = new OutputCapture(16);
    capture.end();
    expect(capture.text()).toBe("");
    expect(await collect(capture.lines())).toEqual([]);
  });
});
