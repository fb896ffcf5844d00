import { describe, expect, it } from "vitest";
import type { CommandValidatorDefinition } from "../ports/registry.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import { VerdictCache } from "./verdict-cache.js";

const definition: CommandValidatorDefinition = {
  type: "command",
  name: "tests",
  command: "npm test",
  successWhen: { kind: "exitCode", code: 0 },
  successWhenText: "exitCode:0",
  timeoutMs: 10_000,
  failurePattern: "test-failed",
  extractParams: {},
  reruns: 0,
  cache: true,
};

const failed: ValidatorOutcome = {
  validator: "tests",
  valid: false,
  pattern: "test-failed",
  params: { failedTests: ["adds"] },
  durationMs: 700,
  exitCode: 1,
};

describe("docs/completion.md#cached-verdicts VerdictCache", () => {
  it("gives back an outcome on the same tree and definition, marked cached, that took no time", () => {
    const cache = new VerdictCache();
    cache.keep("tree-1", definition, failed);
    expect(cache.find("tree-1", definition)).toEqual({ ...failed, durationMs: 0, cached: true });
  });

  it("has none for another tree, another definition, or a validator with cache: false", () => {
    const cache = new VerdictCache();
    cache.keep("tree-1", definition, failed);
    expect(cache.find("tree-2", definition)).toBeUndefined();
    expect(cache.find("tree-1", { ...definition, timeoutMs: 20_000 })).toBeUndefined();
    expect(cache.find("tree-1", { ...definition, cache: false })).toBeUndefined();
  });

  it.each([
    ["stopped by the run's abort", { aborted: true }],
    ["whose definition cannot run", { configError: "exit 127" }],
    ["cut short by its timeout", { timedOut: true }],
    ["refused by the OS sandbox", { sandboxRefusals: ["write /etc/x"] }],
  ])("keeps no outcome %s", (_, fields) => {
    const cache = new VerdictCache();
    cache.keep("tree-1", definition, { ...failed, ...fields });
    expect(cache.find("tree-1", definition)).toBeUndefined();
  });

  it("does not count a flaky pass again", () => {
    const cache = new VerdictCache();
    const flakyPass = { ...failed, valid: true, flaky: { failures: 1, reruns: 1 } };
    cache.keep("tree-1", definition, flakyPass);
    expect(cache.find("tree-1", definition)?.flaky).toBeUndefined();
  });
});
