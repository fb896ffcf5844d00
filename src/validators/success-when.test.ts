import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSuccessWhen } from "../definition/success-when.js";
import { isSuccess } from "./success-when.js";

describe("parseSuccessWhen", () => {
  it("reads every form of the grammar", () => {
    expect(parseSuccessWhen("empty")).toEqual({ ok: true, value: { kind: "empty" } });
    expect(parseSuccessWhen("not-empty")).toEqual({ ok: true, value: { kind: "not-empty" } });
    expect(parseSuccessWhen("exitCode:0")).toEqual({
      ok: true,
      value: { kind: "exitCode", code: 0 },
    });
    expect(parseSuccessWhen("contains:All good: yes")).toEqual({
      ok: true,
      value: { kind: "contains", text: "All good: yes" },
    });
    expect(parseSuccessWhen("matches:^\\d+ passed$")).toEqual({
      ok: true,
      value: { kind: "matches", regex: "^\\d+ passed$" },
    });
  });

  it("rejects unknown rules, bad codes, empty text and broken regexes with a reason", () => {
    for (const text of [
      "",
      "clean",
      "exitCode:",
      "exitCode:x",
      "contains:",
      "matches:",
      "matches:(",
    ]) {
      const parsed = parseSuccessWhen(text);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error.length).toBeGreaterThan(0);
    }
  });

  it("never throws", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(typeof parseSuccessWhen(text).ok).toBe("boolean");
      }),
    );
  });
});

describe("isSuccess", () => {
  const facts = (stdout: string, exitCode = 0) => ({ stdout, exitCode });

  it("empty and not-empty look at stdout ignoring whitespace", () => {
    expect(isSuccess({ kind: "empty" }, facts(" \n\t"))).toBe(true);
    expect(isSuccess({ kind: "empty" }, facts(" M a.ts\n"))).toBe(false);
    expect(isSuccess({ kind: "not-empty" }, facts("x"))).toBe(true);
    expect(isSuccess({ kind: "not-empty" }, facts("\n"))).toBe(false);
  });

  it("exitCode compares the exit code only", () => {
    expect(isSuccess({ kind: "exitCode", code: 0 }, facts("noise", 0))).toBe(true);
    expect(isSuccess({ kind: "exitCode", code: 0 }, facts("", 1))).toBe(false);
    expect(isSuccess({ kind: "exitCode", code: 2 }, facts("", 2))).toBe(true);
  });

  it("the stdout rules fail a command that exited non-zero, whatever it printed", () => {
    expect(isSuccess({ kind: "empty" }, facts("", 128))).toBe(false);
    expect(isSuccess({ kind: "not-empty" }, facts("fatal", 1))).toBe(false);
    expect(isSuccess({ kind: "contains", text: "ok" }, facts("ok", 2))).toBe(false);
    expect(isSuccess({ kind: "matches", regex: "ok" }, facts("ok", 143))).toBe(false);
  });

  it("contains and matches search stdout, matches line by line", () => {
    expect(isSuccess({ kind: "contains", text: "ok" }, facts("all ok"))).toBe(true);
    expect(isSuccess({ kind: "contains", text: "ok" }, facts("fail"))).toBe(false);
    expect(isSuccess({ kind: "matches", regex: "^3 passed$" }, facts("run\n3 passed\nend"))).toBe(
      true,
    );
    expect(isSuccess({ kind: "matches", regex: "^3 passed$" }, facts("13 passed"))).toBe(false);
  });

  it("a parsed rule decides the same as the rule itself", () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 255 }), (stdout, exitCode) => {
        const parsed = parseSuccessWhen(`exitCode:${exitCode}`);
        expect(parsed.ok && isSuccess(parsed.value, facts(stdout, exitCode))).toBe(true);
      }),
    );
  });
});
