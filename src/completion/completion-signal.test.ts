import { describe, expect, it } from "vitest";
import {
  DEFAULT_COMPLETION_SIGNAL,
  hasDeclaration,
  readCompletionSignal,
} from "./completion-signal.js";

describe("readCompletionSignal", () => {
  const custom = { status: ["done"], action: ["finish"] };
  const cases: {
    name: string;
    output: unknown;
    config?: typeof custom;
    declared: boolean;
    status?: string;
    action?: string;
  }[] = [
    {
      name: "docs/completion.md#completion-signal status completed declares completion",
      output: { status: "completed" },
      declared: true,
      status: "completed",
    },
    {
      name: "docs/completion.md#completion-signal next_action.action complete declares completion",
      output: { status: "working", next_action: { action: "complete" } },
      declared: true,
      status: "working",
      action: "complete",
    },
    {
      name: "docs/completion.md#completion-signal next_action.action closing declares completion",
      output: { next_action: { action: "closing" } },
      declared: true,
      action: "closing",
    },
    {
      name: "docs/completion.md#completion-signal any other status declares nothing",
      output: { status: "in_progress", next_action: { action: "continue" } },
      declared: false,
    },
    {
      name: "docs/completion.md#completion-signal the registry's completionSignal replaces the defaults",
      output: { status: "completed" },
      config: custom,
      declared: false,
    },
    {
      name: "docs/completion.md#completion-signal a custom status declares completion",
      output: { status: "done" },
      config: custom,
      declared: true,
    },
    {
      name: "docs/completion.md#completion-signal a custom action declares completion",
      output: { next_action: { action: "finish" } },
      config: custom,
      declared: true,
    },
    {
      name: "docs/completion.md#completion-signal no structured output declares nothing",
      output: undefined,
      declared: false,
    },
    {
      name: "docs/completion.md#completion-signal a string is not a declaration",
      output: "completed",
      declared: false,
    },
    {
      name: "docs/completion.md#completion-signal next_action given as a bare string is not read",
      output: { next_action: "complete" },
      declared: false,
    },
    {
      name: "docs/completion.md#completion-signal a non-string status is not read",
      output: { status: true },
      declared: false,
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const signal = readCompletionSignal(
        testCase.output,
        testCase.config ?? DEFAULT_COMPLETION_SIGNAL,
      );
      expect(signal.declared).toBe(testCase.declared);
      if (testCase.status !== undefined) expect(signal.status).toBe(testCase.status);
      if (testCase.action !== undefined) expect(signal.action).toBe(testCase.action);
    });
  }

  it("docs/completion.md#completion-signal the next action's reason is carried for the summary", () => {
    const signal = readCompletionSignal(
      { status: "completed", next_action: { action: "complete", reason: "tests pass" } },
      DEFAULT_COMPLETION_SIGNAL,
    );
    expect(signal.reason).toBe("tests pass");
  });

  it("hasDeclaration is true only for a status or a next action", () => {
    expect(hasDeclaration({ status: "x" })).toBe(true);
    expect(hasDeclaration({ next_action: { action: "x" } })).toBe(true);
    expect(hasDeclaration({ name: "package" })).toBe(false);
  });
});

describe("status and action words in any case, and blocked", () => {
  it("docs/completion.md#completion-signal reads COMPLETED, Complete and padded words as the registry's", () => {
    const config = DEFAULT_COMPLETION_SIGNAL;
    expect(readCompletionSignal({ status: "COMPLETED" }, config).declared).toBe(true);
    expect(readCompletionSignal({ next_action: { action: "Complete" } }, config).declared).toBe(
      true,
    );
    expect(readCompletionSignal({ status: " completed " }, config).declared).toBe(true);
    expect(
      readCompletionSignal({ status: "DONE" }, { status: ["done"], action: [] }).declared,
    ).toBe(true);
    expect(readCompletionSignal({ status: "completedish" }, config).declared).toBe(false);
  });

  it("docs/completion.md#blocked blocked in status or action is a declaration of its own, with the model's reason", () => {
    const config = DEFAULT_COMPLETION_SIGNAL;
    expect(
      readCompletionSignal(
        {
          status: "BLOCKED",
          summary: "stuck",
          next_action: { action: "continue", reason: "no key" },
        },
        config,
      ),
    ).toMatchObject({ declared: false, blockedReason: "no key" });
    expect(
      readCompletionSignal(
        { status: "completed", next_action: { action: "blocked" }, summary: "half" },
        config,
      ),
    ).toMatchObject({ declared: false, blockedReason: "half" });
    expect(readCompletionSignal({ status: "blocked" }, config).blockedReason).toBe(
      "no reason given",
    );
    expect(readCompletionSignal({ status: "completed" }, config).blockedReason).toBeUndefined();
  });
});
