import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openAppendOnly } from "./append-only-file.js";

describe("openAppendOnly", () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "closer-append-"));
    path = join(dir, "events.jsonl");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("creates the file on the first append and has each append in it when the call returns", () => {
    const file = openAppendOnly(path);
    file.append("one\n");
    expect(readFileSync(path, "utf8")).toBe("one\n");
    file.append("two\n");
    expect(readFileSync(path, "utf8")).toBe("one\ntwo\n");
    file.close();
  });

  it("appends after what an earlier process left, ending a torn last line first", () => {
    writeFileSync(path, '{"type":"run-start"}\n{"type":"itera');
    const file = openAppendOnly(path);
    file.append('{"type":"run-start"}\n');
    file.close();
    expect(readFileSync(path, "utf8")).toBe(
      '{"type":"run-start"}\n{"type":"itera\n{"type":"run-start"}\n',
    );
    const again = openAppendOnly(path);
    again.append("next\n");
    again.close();
    expect(readFileSync(path, "utf8").endsWith('{"type":"run-start"}\nnext\n')).toBe(true);
  });

  it("opens the file again after close, and lands at its end even if it grew meanwhile", () => {
    const file = openAppendOnly(path);
    file.append("a\n");
    file.close();
    writeFileSync(path, "b\n", { flag: "a" });
    file.append("c\n");
    writeFileSync(path, "d\n", { flag: "a" });
    file.append("e\n");
    file.close();
    file.close();
    expect(readFileSync(path, "utf8")).toBe("a\nb\nc\nd\ne\n");
  });

  it("writes a large text whole, multi-byte characters included", () => {
    const text = `${"é€".repeat(400_000)}\n`;
    const file = openAppendOnly(path);
    file.append(text);
    file.close();
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("writes to the file the name holds now once it was replaced or removed", () => {
    const file = openAppendOnly(path);
    file.append("old\n");
    renameSync(path, join(dir, "moved.jsonl"));
    file.closeIfReplaced();
    file.append("new\n");
    expect(readFileSync(path, "utf8")).toBe("new\n");
    file.closeIfReplaced(); // the same file: kept open
    file.append("more\n");
    rmSync(path);
    file.closeIfReplaced();
    file.append("last\n");
    file.close();
    expect(readFileSync(join(dir, "moved.jsonl"), "utf8")).toBe("old\n");
    expect(readFileSync(path, "utf8")).toBe("last\n");
  });
});
