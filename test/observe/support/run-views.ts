import type { ReportTexts } from "../../../src/observe/report/render-report.js";
import type {
  IterationView,
  Receipt,
  RunView,
  TokenUsage,
  ToolCallView,
} from "../../../src/observe/run-view.js";

export const INJECTION =
  '<script>window.__pwned = 1</script> <img src=x onerror="window.__pwned=2"> </textarea> "onload=alert(3)';

const NO_TOKENS: TokenUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheCreationTokens: 0,
};

function receipt(iteration: number, reason: string, costUsd: number): Receipt {
  return {
    iteration,
    reason,
    durationMs: 1200,
    costUsd,
    usage: { ...NO_TOKENS, inputTokens: 1000, outputTokens: 200 },
  };
}

/** A run that started, recorded nothing and ended: no iterations, no queries, no cost. */
export function makeEmptyRunView(): RunView {
  return {
    runId: "20300101-120000-empty0",
    agent: "tasker",
    runDir: "/runs/20300101-120000-empty0",
    task: { kind: "text", title: "nothing yet", body: "" },
    status: "error",
    reason: "the backend could not start",
    startedAt: "2030-01-01T12:00:00.000Z",
    endedAt: "2030-01-01T12:00:00.000Z",
    durationMs: 0,
    iterations: 0,
    attempts: 1,
    costUsd: 0,
    usage: NO_TOKENS,
    setup: [],
    timeline: [],
    end: {
      status: "error",
      reason: "the backend could not start",
      success: false,
      sideEffects: [],
      warnings: [],
      refutedDeclarations: 0,
      flaky: [],
    },
    receipts: [],
    costByReason: [],
  };
}

function toolCall(action: string, target: string, more: Partial<ToolCallView> = {}): ToolCallView {
  return { tool: action === "command" ? "Bash" : "Edit", action, target, failed: false, ...more };
}

const FAILED_ITERATION: IterationView = {
  iteration: 1,
  step: "initial.task",
  attempt: 1,
  toolCalls: [
    toolCall("read", "src/add.js"),
    toolCall("edit", INJECTION),
    toolCall("command", "npm test", { exitCode: 1, failed: true, durationMs: 2300 }),
  ],
  prompt: {
    kind: "step",
    templatePath: "steps/initial/task/f_default.md",
    chars: 120,
    file: "prompts/iteration-001.md",
  },
  receipts: [receipt(1, "initial", 0.02)],
  declaration: {
    decision: "complete",
    source: "structured",
    status: "completed",
    reason: INJECTION,
  },
  checks: [
    { kind: "validator", name: "git-clean", valid: true, durationMs: 30 },
    {
      kind: "validator",
      name: "tests-pass",
      valid: false,
      pattern: "test-failed",
      exitCode: 1,
      durationMs: 900,
      output: `not ok 1 - ${INJECTION}`,
    },
  ],
  retry: {
    pattern: "test-failed",
    templatePath: "steps/retry/task/f_failed_test-failed.md",
    attempt: 1,
    maxAttempts: 3,
  },
  warnings: [],
};

const PASSED_ITERATION: IterationView = {
  iteration: 2,
  step: "initial.task",
  attempt: 1,
  toolCalls: Array.from({ length: 25 }, (_, index) => toolCall("read", `src/file-${index}.js`)),
  prompt: {
    kind: "retry",
    templatePath: "steps/retry/task/f_failed_test-failed.md",
    chars: 200,
    file: "prompts/iteration-002.md",
  },
  receipts: [receipt(2, "retry:test-failed", 0.03), receipt(2, "closure-review", 0.01)],
  declaration: { decision: "complete", source: "structured" },
  checks: [
    { kind: "validator", name: "git-clean", valid: true },
    { kind: "validator", name: "tests-pass", valid: true },
  ],
  warnings: [],
};

/** A two-iteration run whose texts all carry markup. */
export function makeTwoIterationRunView(): RunView {
  const receipts = [...FAILED_ITERATION.receipts, ...PASSED_ITERATION.receipts];
  return {
    ...makeEmptyRunView(),
    runId: "20300101-120000-two222",
    runDir: "/runs/20300101-120000-two222",
    task: {
      kind: "issue",
      title: INJECTION,
      body: INJECTION,
      issueNumber: 7,
      url: "javascript:alert(1)",
    },
    status: "completed",
    reason: "every check passed",
    durationMs: 65_000,
    iterations: 2,
    costUsd: 0.06,
    usage: { ...NO_TOKENS, inputTokens: 3000, outputTokens: 600 },
    baseline: {
      commit: "abc123",
      checks: [{ validator: "tests-pass", valid: false, durationMs: 800 }],
      dirtyFiles: [INJECTION],
      protectedFiles: 2,
    },
    timeline: [FAILED_ITERATION, PASSED_ITERATION],
    receipts,
    costByReason: [
      { reason: "initial", queries: 1, costUsd: 0.02, durationMs: 1200, usage: NO_TOKENS },
      {
        reason: "retry:test-failed",
        queries: 1,
        costUsd: 0.03,
        durationMs: 1200,
        usage: NO_TOKENS,
      },
      { reason: INJECTION, queries: 1, costUsd: 0.01, durationMs: 1200, usage: NO_TOKENS },
    ],
    end: {
      status: "completed",
      reason: "every check passed",
      success: true,
      sideEffects: [{ action: "comment", target: "issue #7", ok: true, detail: INJECTION }],
      warnings: [INJECTION],
      refutedDeclarations: 1,
      flaky: [],
    },
  };
}

export const TWO_ITERATION_PROMPTS = {
  "prompts/iteration-001.md": `# Task\n${INJECTION}\n`,
  "prompts/iteration-002.md": `## Tests are failing\n- ${INJECTION}\n`,
};

/** What the model said in each iteration, and the diff each made, markup included. */
export const TWO_ITERATION_TEXTS: ReportTexts = {
  prompts: TWO_ITERATION_PROMPTS,
  summaries: { 1: `I changed add(). ${INJECTION}`, 2: "Fixed add() so the test passes." },
  diffs: {
    1: {
      file: "diffs/iteration-001.diff",
      text: [
        "diff --git a/src/add.js b/src/add.js",
        "index 1111111..2222222 100644",
        "--- a/src/add.js",
        "+++ b/src/add.js",
        "@@ -1 +1 @@",
        "-export const add = (a, b) => a - b;",
        `+export const add = (a, b) => a - b; // ${INJECTION}`,
        "",
      ].join("\n"),
    },
    2: { file: "diffs/iteration-002.diff", text: "" },
  },
};
