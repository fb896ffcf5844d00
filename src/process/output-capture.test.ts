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

  it("keeps the head and the tail of maxBytes and says how much it cut between them", () => {
    const capture = new OutputCapture(6);
    capture.add(Buffer.from("abc"));
    capture.add(Buffer.from("defg"));
    capture.add(Buffer.from("hij"));
    expect(capture.text()).toBe("abc\n…[cut 4 bytes]…\nhij");
    expect(capture.droppedBytes).toBe(4);
  });

  it("keeps the end of a long flood for the extractors, and memory stays at maxBytes", () => {
    const capture = new OutputCapture(64);
    const line = Buffer.from("ok - passing test\n");
    for (let index = 0; index < 10_000; index++) capture.add(line);
    capture.add(Buffer.from("not ok 9 - the failing one\n"));
    capture.end();
    const text = capture.text();
    expect(text.startsWith("ok - passing test\n")).toBe(true);
    expect(text.endsWith("not ok 9 - the failing one\n")).toBe(true);
    expect(text).toMatch(/…\[cut 180\.0 kB\]…/);
    expect(Buffer.byteLength(text)).toBeLessThan(64 + 40);
  });

  it("gives a reader that fell behind the cut the head, a cut marker and the tail", async () => {
    const capture = new OutputCapture(12);
    capture.add(Buffer.from("one\n"));
    for (let index = 0; index < 100; index++) capture.add(Buffer.from("x\n"));
    capture.add(Buffer.from("last\n"));
    capture.end();
    const lines = await collect(capture.lines());
    expect(lines[0]).toBe("one");
    expect(lines).toContain("last");
    expect(lines.some((line) => line.startsWith("…[cut "))).toBe(true);
  });

  it("is empty when nothing came", async () => {
    const capture = new OutputCapture(16);
    capture.end();
    expect(capture.text()).toBe("");
    expect(await collect(capture.lines())).toEqual([]);
  });
});
