import { describe, expect, it } from "vitest";
import type { CommandValidatorDefinition, ExtractorName } from "../ports/registry.js";
import type { ValidatorOutcome } from "../ports/validator.js";
import { unrunnableReason } from "./unrunnable-check.js";

function command(
  name: string,
  text: string,
  extractParams: Record<string, ExtractorName> = {},
): CommandValidatorDefinition {
  return {
    name,
    type: "command",
    command: text,
    extractParams,
  } as unknown as CommandValidatorDefinition;
}

function outcome(fields: Partial<ValidatorOutcome>): ValidatorOutcome {
  return { validator: "lint", valid: false, params: {}, durationMs: 1, ...fields };
}

const NPM_BANNER = "\n> proj@1.0.0 lint\n> biome check .\n\n";
const VITEST_PASS =
  " ✓ test/sum.test.ts (2 tests) 3ms\n\n Test Files  1 passed (1)\n      Tests  2 passed (2)\n";

describe("unrunnableReason", () => {
  it("names the check, quotes the shell and gives the fix when a script's program is missing", () => {
    const reason = unrunnableReason(
      command("lint", "npm run lint", { lintErrors: "parseLintErrors" }),
      outcome({ exitCode: 127, stdout: NPM_BANNER, stderr: "sh: 1: biome: not found\n" }),
    );
    expect(reason).toBe(
      'the check "lint" cannot run on the untouched tree: its program biome is not found (exit 127 from `npm run lint`); it printed: sh: 1: biome: not found. Fix: install biome or fix the command in steps_registry.json validators.lint.command',
    );
  });

  it("says a program that cannot be executed (exit 126)", () => {
    const reason = unrunnableReason(
      command("tests", "./run-tests.sh"),
      outcome({
        validator: "tests",
        exitCode: 126,
        stderr: "sh: 1: ./run-tests.sh: Permission denied\n",
      }),
    );
    expect(reason).toContain("its program ./run-tests.sh cannot be executed (exit 126");
    expect(reason).toContain("Fix: make ./run-tests.sh executable or fix the command");
  });

  it("stops a check the OS sandbox refused, naming the refusals and the setting that allows them", () => {
    const refusals = [
      "deny openat /home/u/.cargo/.package-cache",
      "deny openat /home/u/.cargo/.package-cache",
      "deny openat /home/u/.cargo/.global-cache",
      "deny mkdir /home/u/.cache/x",
      "deny mkdir /home/u/.cache/y",
      "deny mkdir /home/u/.cache/z",
    ];
    const reason = unrunnableReason(
      command("tests", "cargo test"),
      outcome({ validator: "tests", exitCode: 0, sandboxRefusals: refusals }),
    );
    expect(reason).toBe(
      'the check "tests" cannot run on the untouched tree: the OS sandbox refused it: deny openat /home/u/.cargo/.package-cache; deny openat /home/u/.cargo/.global-cache; deny mkdir /home/u/.cache/x (and 2 more). Fix: add the place it writes to runner.sandbox.allowWrite in agent.json (docs/sandbox.md#widening), or set the tool\'s own variable to a writable place',
    );
  });

  it("names runner.sandbox.validatorDomains for a check the sandbox refused a connection", () => {
    const reason = unrunnableReason(
      command("tests", "cargo test"),
      outcome({
        validator: "tests",
        exitCode: 101,
        sandboxRefusals: [
          "deny network-outbound index.crates.io:443 (host is not on the allow list)",
        ],
      }),
    );
    expect(reason).toContain(
      "the OS sandbox refused it: deny network-outbound index.crates.io:443",
    );
    expect(reason).toContain("Fix: add the host to runner.sandbox.validatorDomains in agent.json");
  });

  it("lets a check run on whose missing program is a file of the project's (the task may be to make it)", () => {
    const reason = unrunnableReason(
      command("lint", "npm test"),
      outcome({ validator: "lint", exitCode: 127, stderr: "sh: 1: ./tools/lint.sh: not found\n" }),
    );
    expect(reason).toBeUndefined();
  });

  it("leaves a custom validator's error to the declaration: its module may judge the model's code", () => {
    const custom = {
      type: "custom",
      name: "widget-loads",
      module: "/agent/validators/widget-loads.mjs",
      failurePattern: "failed",
      extractParams: {},
      reruns: 0,
      cache: true,
      timeoutMs: 10_000,
    } as const;
    const reason = unrunnableReason(
      custom,
      outcome({
        validator: "widget-loads",
        configError: "threw: Cannot find module './widget.mjs'",
      }),
    );
    expect(reason).toBeUndefined();
  });

  it("keeps a configuration error's own words", () => {
    const reason = unrunnableReason(
      undefined,
      outcome({ validator: "review", configError: "cannot load validators/x.mjs: no such file" }),
    );
    expect(reason).toBe(
      'the check "review" cannot run on the untouched tree: cannot load validators/x.mjs: no such file',
    );
  });

  it("stops a test check that passed with output naming no test", () => {
    const reason = unrunnableReason(
      command("tests", "npm test", { failedTests: "parseTestOutput" }),
      outcome({ validator: "tests", valid: true, exitCode: 0, stdout: "all good\n" }),
    );
    expect(reason).toContain(
      "parseTestOutput reads nothing from its output (exit 0 from `npm test`); it printed: all good",
    );
  });

  it("stops a lint check that failed with output naming no problem", () => {
    const reason = unrunnableReason(
      command("lint", "npm run lint", { lintErrors: "parseLintErrors" }),
      outcome({ exitCode: 1, stderr: 'npm error Missing script: "lint"\n' }),
    );
    expect(reason).toContain(
      'parseLintErrors reads nothing from its output (exit 1 from `npm run lint`); it printed: npm error Missing script: "lint"',
    );
  });

  it("lets a check that merely fails, or passes readably, run on", () => {
    const tests = command("tests", "npm test", { failedTests: "parseTestOutput" });
    expect(
      unrunnableReason(
        tests,
        outcome({ validator: "tests", valid: true, exitCode: 0, stdout: VITEST_PASS }),
      ),
    ).toBeUndefined();
    // A failing test check is the task's, readable or not.
    expect(
      unrunnableReason(
        tests,
        outcome({ validator: "tests", exitCode: 1, stdout: "SyntaxError: Unexpected token\n" }),
      ),
    ).toBeUndefined();
    const lint = command("lint", "npm run lint", { lintErrors: "parseLintErrors" });
    const problem = "/p/a.js\n  1:1  error  Unexpected var  no-var\n";
    expect(unrunnableReason(lint, outcome({ exitCode: 1, stdout: problem }))).toBeUndefined();
    expect(
      unrunnableReason(lint, outcome({ valid: true, exitCode: 0, stdout: "" })),
    ).toBeUndefined();
    expect(unrunnableReason(lint, outcome({ exitCode: 127, timedOut: true }))).toBeUndefined();
    expect(unrunnableReason(lint, outcome({ exitCode: 127, aborted: true }))).toBeUndefined();
  });
});
