import { describe, expect, it } from "vitest";
import type { ValidatorDefinition } from "../ports/registry.js";
import { applyConditionParams, placeholdersOf } from "./condition-params.js";

const base = {
  name: "has-file",
  failurePattern: "missing",
  extractParams: {},
  reruns: 0,
  cache: true,
} as const;

const command = {
  ...base,
  type: "command",
  command: "test -s {{file}} && grep -q {{ word }} {{file}}",
  successWhen: { kind: "exitCode", code: 0 },
  successWhenText: "exitCode:0",
  timeoutMs: 1_000,
} as unknown as ValidatorDefinition;

describe("docs/completion.md#condition-params applyConditionParams", () => {
  it("puts each param into the command as one shell word, quotes and spaces included", () => {
    const applied = applyConditionParams(command, { file: "my notes.txt", word: "it's" });
    expect(applied).toMatchObject({
      ok: true,
      definition: { command: "test -s 'my notes.txt' && grep -q 'it'\\''s' 'my notes.txt'" },
    });
  });

  it("writes numbers, booleans and objects as JSON", () => {
    const applied = applyConditionParams(command, { file: 3, word: { a: 1 } });
    expect(applied).toMatchObject({
      definition: { command: `test -s '3' && grep -q '{"a":1}' '3'` },
    });
  });

  it("a placeholder its condition gives no param for is a definition error naming both", () => {
    const applied = applyConditionParams(command, { file: "a.txt" });
    expect(applied).toEqual({
      ok: false,
      error: expect.stringContaining(
        'validator "has-file" uses {{word}} but its completion condition\'s params do not give it',
      ),
    });
    // Without params the command is its own: a `{{` in it is the command's.
    expect(applyConditionParams(command, undefined)).toEqual({ ok: true, definition: command });
  });

  it("leaves a definition without placeholders, and an escaped \\{{, as it is", () => {
    const plain = { ...command, command: "echo \\{{file}} ok" } as ValidatorDefinition;
    expect(placeholdersOf("echo \\{{file}} ok")).toEqual([]);
    expect(applyConditionParams(plain, { file: "x" })).toEqual({
      ok: true,
      definition: { ...plain, command: "echo \\{{file}} ok" },
    });
    expect(applyConditionParams(plain, undefined)).toEqual({ ok: true, definition: plain });
  });

  it("puts params into a file validator's path unquoted", () => {
    const file = {
      ...base,
      type: "file",
      path: "docs/{{page}}.md",
    } as unknown as ValidatorDefinition;
    expect(applyConditionParams(file, { page: "intro" })).toMatchObject({
      definition: { path: "docs/intro.md" },
    });
  });
});
