import { describe, expect, it } from "vitest";
import { normalizeDefinitionText } from "./definition-text.js";

describe("normalizeDefinitionText", () => {
  it("drops a byte order mark and turns CRLF and CR into LF", () => {
    expect(normalizeDefinitionText("\uFEFFa\r\nb\rc\n")).toBe("a\nb\nc\n");
  });
  it("leaves LF text and a mark that is not at the start as they are", () => {
    expect(normalizeDefinitionText("a\n\uFEFFb")).toBe("a\n\uFEFFb");
  });
});
