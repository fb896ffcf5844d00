import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { PromptRequest, RetryPromptRequest } from "../ports/prompts.js";
import type { CompletionStepDefinition, OnFailure, PatternDefinition } from "../ports/registry.js";
import type { TaskInfo } from "../ports/run-state.js";
import { renderPrompt } from "../prompts/render-prompt.js";
import { makeVariables } from "../prompts/variables.js";
import { buildRetryPrompt, decideOnFailure, decideOnFormatError } from "./retry-prompt.js";

const completionStep: CompletionStepDefinition = {
  id: "complete.issue",
  name: "Issue complete",
  c2: "retry",
  c3: "issue",
  completionConditions: [{ validator: "tests-pass" }],
  onFailure: { action: "retry", maxAttempts: 3 },
  maxFormatRetries: 3,
};

const patterns: Record<string, PatternDefinition> = {
  "test-failed": {
    name: "test-failed",
    description: "tests fail",
    edition: "failed",
    adaptation: "test-failed",
    params: ["failedTests", "errorOutput"],
  },
};

const task: TaskInfo = { kind: "text", title: "Fix slugify", body: "Make the tests pass." };

/** A renderer double that records what it was asked and answers with a fixed path. */
function recordingRenderer() {
  const requests: PromptRequest[] = [];
  const render = async (request: PromptRequest) => {
    requests.push(request);
    return { text: `rendered ${request.words.adaptation}`, templatePath: "prompts/x.md" };
  };
  return { requests, render };
}

function request(overrides: Partial<RetryPromptRequest>): RetryPromptRequest {
  return {
    agentDir: "/agents/iterator",
    c1: "steps",
    completionStep,
    patternName: "test-failed",
    patterns,
    params: { failedTests: [{ name: "trims", error: "boom" }], errorOutput: "stack" },
    attempt: 2,
    variables: makeVariables({
      parameters: { issue: 7 },
      iteration: 3,
      maxIterations: 10,
      runId: "run-1",
      checkId: "check-1",
      task,
    }),
    render: recordingRenderer().render,
    ...overrides,
  };
}

describe("buildRetryPrompt", () => {
  const cases: {
    name: string;
    patternName: string;
    params: Record<string, unknown>;
    adaptation: string;
    kind: string;
  }[] = [
    {
      name: "docs/retry.md#patterns a registry pattern resolves steps/{c2}/{c3}/f_failed_<adaptation>.md",
      patternName: "test-failed",
      params: { failedTests: [], errorOutput: "x" },
      adaptation: "test-failed",
      kind: "retry",
    },
    {
      name: "docs/retry.md#builtin-patterns format-error is built in with formatError and expectedFormat",
      patternName: "format-error",
      params: { formatError: "no JSON", expectedFormat: "a JSON object" },
      adaptation: "format-error",
      kind: "format-retry",
    },
    {
      name: "docs/retry.md#builtin-patterns review-rejected is built in with pendingActions",
      patternName: "review-rejected",
      params: { pendingActions: ["add docs"] },
      adaptation: "review-rejected",
      kind: "retry",
    },
    {
      name: "docs/retry.md#builtin-patterns undecidable is built in with decisionSource and decisionReason",
      patternName: "undecidable",
      params: { decisionSource: "none", decisionReason: "no-decision" },
      adaptation: "undecidable",
      kind: "retry",
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, async () => {
      const { requests, render } = recordingRenderer();
      const prompt = await buildRetryPrompt(
        request({ patternName: testCase.patternName, params: testCase.params, render }),
      );
      const asked = requests[0];
      expect(asked?.words).toEqual({
        c1: "steps",
        c2: "retry",
        c3: "issue",
        edition: "failed",
        adaptation: testCase.adaptation,
      });
      expect(asked?.retry?.pattern).toBe(testCase.patternName);
      expect(asked?.variables).toMatchObject({
        ...testCase.params,
        pattern: testCase.patternName,
        attempt: 2,
      });
      expect(prompt).toMatchObject({
        kind: testCase.kind,
        pattern: testCase.patternName,
        templatePath: "prompts/x.md",
      });
    });
  }

  it("docs/retry.md#retry-prompt the run's variables reach the retry template", async () => {
    const { requests, render } = recordingRenderer();
    await buildRetryPrompt(request({ render }));
    expect(requests[0]?.variables).toMatchObject({
      issue: 7,
      iteration: 3,
      checkId: "check-1",
      runId: "run-1",
    });
  });

  it("docs/retry.md#patterns a registry pattern of a built-in name wins over the built-in", async () => {
    const { requests, render } = recordingRenderer();
    const custom = {
      ...patterns,
      "format-error": {
        ...(patterns["test-failed"] as PatternDefinition),
        name: "format-error",
        adaptation: "bad-format",
        params: ["formatError"],
      },
    };
    await buildRetryPrompt(
      request({
        patternName: "format-error",
        patterns: custom,
        params: { formatError: "x" },
        render,
      }),
    );
    expect(requests[0]?.words.adaptation).toBe("bad-format");
    expect(requests[0]?.retry?.params).toEqual(["formatError"]);
  });

  it("docs/retry.md#retry-prompt a declared param the check did not extract is an empty string, so strict templates render", async () => {
    const { requests, render } = recordingRenderer();
    await buildRetryPrompt(request({ params: { errorOutput: "timed out" }, render }));
    expect(requests[0]?.variables).toMatchObject({ failedTests: "", errorOutput: "timed out" });
  });

  it("docs/retry.md#cutting-params long params are cut for the prompt, head and tail, with a note", async () => {
    const { requests, render } = recordingRenderer();
    const long = `HEAD${"x".repeat(50_000)}TAIL`;
    const prompt = await buildRetryPrompt(
      request({ params: { failedTests: [], errorOutput: long }, render }),
    );
    const sent = String(requests[0]?.variables.errorOutput);
    expect(sent.length).toBeLessThan(long.length);
    expect(sent.startsWith("HEAD")).toBe(true);
    expect(sent.endsWith("TAIL")).toBe(true);
    expect(sent).toContain("characters cut");
    expect(prompt.cuts.some((note) => note.startsWith("errorOutput"))).toBe(true);
  });

  it("docs/retry.md#retry-prompt with no template in the agent folder, the built-in text lists the pattern and its params", async () => {
    const agentDir = path.join(os.tmpdir(), "closer-retry-no-such-agent");
    const prompt = await buildRetryPrompt(
      request({
        agentDir,
        render: renderPrompt,
        params: {
          failedTests: [{ name: "slugify trims spaces", error: "expected 'a-b'" }],
          errorOutput: "1 failed",
        },
      }),
    );
    expect(prompt.templatePath).toBe("builtin:retry");
    expect(prompt.text).toContain("test-failed");
    expect(prompt.text).toContain("slugify trims spaces");
    expect(prompt.text).toContain("1 failed");
  });
});

describe("decideOnFailure", () => {
  const retry: OnFailure = { action: "retry", maxAttempts: 3 };
  it.each([
    [1, "retry"],
    [2, "retry"],
    [3, "retries_exhausted"],
    [4, "retries_exhausted"],
    [9, "retries_exhausted"],
  ])(
    "docs/retry.md#on-failure with maxAttempts 3, failed check %i → %s",
    (failedChecks, expected) => {
      expect(decideOnFailure(retry, failedChecks)).toBe(expected);
    },
  );

  it("docs/retry.md#on-failure maxAttempts 0 ends the run at the first failed check", () => {
    expect(decideOnFailure({ action: "retry", maxAttempts: 0 }, 1)).toBe("retries_exhausted");
  });

  it("docs/retry.md#on-failure abort stops at the first failed check", () => {
    expect(decideOnFailure({ action: "abort", maxAttempts: 3 }, 1)).toBe("aborted");
  });

  it("docs/retry.md#on-failure skip accepts the failure", () => {
    expect(decideOnFailure({ action: "skip", maxAttempts: 3 }, 5)).toBe("skip");
  });
});

describe("decideOnFormatError", () => {
  it.each([
    [1, "retry"],
    [3, "retry"],
    [4, "proceed"],
  ])(
    "docs/retry.md#format-retries with maxFormatRetries 3, format error %i → %s (never ends the run)",
    (failures, expected) => {
      expect(decideOnFormatError(failures, 3)).toBe(expected);
    },
  );
});
