import { describe, expect, it } from "vitest";
import { eventLine, type Payload } from "./bounded-json.js";

const keep = (text: string) => text;

function lineOf(message: string, cap: number): { line: string; spilled: Payload[] } {
  const spilled: Payload[] = [];
  const line = eventLine({ type: "warning", message }, keep, cap, (payload) => {
    spilled.push(payload);
    return "payloads/0001-message.txt.gz";
  });
  return { line, spilled };
}

describe("eventLine's field cap counts bytes, not characters", () => {
  it("keeps a multi-byte text whose bytes fit the cap whole", () => {
    const message = "€".repeat(1024); // 3,072 bytes
    const { line, spilled } = lineOf(message, 3072);
    expect(spilled).toEqual([]);
    expect(JSON.parse(line).message).toBe(message);
  });

  it("spills a multi-byte text with fewer characters than the cap but more bytes", () => {
    const message = "€".repeat(1025); // 1,025 characters, 3,075 bytes
    const { line, spilled } = lineOf(message, 3072);
    expect(spilled.map((payload) => payload.text)).toEqual([message]);
    expect(JSON.parse(line).payloads).toEqual({ message: "payloads/0001-message.txt.gz" });
  });

  it("keeps an ASCII text up to the cap whole", () => {
    const message = "a".repeat(3072);
    expect(lineOf(message, 3072).spilled).toEqual([]);
  });
});
