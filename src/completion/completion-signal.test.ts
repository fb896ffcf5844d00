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
      name: "§4.1 status completed declares completion",
      output: { status: "completed" },
      declared: true,
      status: "completed",
    },
    {
      name: "§4.1 next_action.action complete declares completion",
      output: { status: "working", next_action: { action: "complete" } },
      declared: true,
      status: "working",
      action: "complete",
    },
    {
      name: "§4.1 next_action.action closing declares completion",
      output: { next_action: { action: "closing" } },
      declared: true,
      action: "closing",
    },
    {
      name: "§4.1 any other status declares nothing",
      output: { status: "in_progress", next_action: { action: "continue" } },
      declared: false,
    },
    {
      name: "§4.1 the registry's completionSignal replaces the defaults",
      output: { status: "completed" },
      config: custom,
      declared: false,
    },
    {
      name: "§4.1 a custom status declares completion",
      output: { status: "done" },
      config: custom,
      declared: true,
    },
    {
      name: "§4.1 a custom action declares completion",
      output: { next_action: { action: "finish" } },
      config: custom,
      declared: true,
    },
    { name: "§4.1 no structured output declares nothing", output: undefined, declared: false },
    { name: "§4.1 a string is not a declaration", output: "completed", declared: false },
    {
      name: "§4.1 next_action given as a bare string is not read",
      output: { next_action: "complete" },
      declared: false,
    },
    { name: "§4.1 a non-string status is not read", output: { status: true }, declared: false },
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

  it("§4.1 the next action's reason is carried for the summary", () => {
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
