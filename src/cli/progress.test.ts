import { describe, expect, it, vi } from "vitest";
import { EVENT_FORMAT_VERSION, type RunEvent, type RunEventBody } from "../ports/events.js";
import { makeProgressReporter, shouldColor } from "./progress.js";

function event(body: RunEventBody): RunEvent {
  return { v: EVENT_FORMAT_VERSION, at: 0, runId: "run-1", ...body } as RunEvent;
}

function capture(
  options: { live?: boolean; color?: boolean; verbose?: boolean; now?: () => number } = {},
) {
  const chunks: string[] = [];
  const reporter = makeProgressReporter({
    write: (text) => chunks.push(text),
    live: options.live ?? false,
    color: options.color ?? false,
    verbose: options.verbose ?? false,
    now: options.now ?? (() => 0),
  });
  return { reporter, output: () => chunks.join("") };
}

const arc: RunEventBody[] = [
  {
    type: "run-start",
    agent: "example",
    task: "Fix slugify",
    cwd: "/w",
    maxIterations: 6,
    resumed: false,
  },
  { type: "iteration-start", iteration: 1, step: "initial.issue" },
  { type: "backend-start", iteration: 1, backend: "replay" },
  {
    type: "backend-end",
    iteration: 1,
    durationMs: 1500,
    costUsd: 0.02,
    totalCostUsd: 0.02,
    hasStructuredOutput: true,
  },
  { type: "completion-signal", iteration: 1, declared: true, status: "completed" },
  {
    type: "decision",
    iteration: 1,
    checkId: "c1",
    source: "structured",
    decision: "complete",
    undecidableStreak: 0,
  },
  {
    type: "validator-end",
    iteration: 1,
    validator: "git-clean",
    valid: true,
    durationMs: 20,
    params: {},
  },
  {
    type: "validator-end",
    iteration: 1,
    validator: "tests-pass",
    valid: false,
    pattern: "test-failed",
    exitCode: 1,
    durationMs: 700,
    params: { failedTests: [{ name: "trims the ends", error: "expected" }], errorOutput: "…" },
  },
  {
    type: "retry-select",
    iteration: 1,
    pattern: "test-failed",
    templatePath: "prompts/x.md",
    attempt: 1,
    maxAttempts: 3,
  },
  {
    type: "run-end",
    status: "completed",
    success: true,
    reason: "verified",
    iterations: 2,
    costUsd: 0.04,
  },
];

describe("progress display", () => {
  it("prints one plain line per meaningful event when not a terminal", () => {
    const { reporter, output } = capture();
    for (const body of arc) reporter(event(body));
    const lines = output().trimEnd().split("\n");
    expect(lines).toEqual([
      "closer example · Fix slugify · up to 6 iterations",
      "▸ iteration 1 · step initial.issue",
      "  backend replay working…",
      "  backend 1.5s · $0.0200 (total $0.0200) · structured output",
      "  declared done (status completed)",
      "  decision complete from structured",
      "  ✓ git-clean 0.0s",
      "  ✗ tests-pass 0.7s · trims the ends",
      "  ↻ retry with test-failed (attempt 1/3) prompts/x.md",
      "■ completed after 2 iteration(s) · $0.0400 · verified",
    ]);
    expect(output()).not.toContain("\x1b[");
  });

  it("says why a query other than a step prompt's was sent (docs/observe.md#receipts)", () => {
    const { reporter, output } = capture();
    const backendEnd = {
      type: "backend-end",
      iteration: 2,
      durationMs: 1500,
      costUsd: 0.02,
      totalCostUsd: 0.04,
      hasStructuredOutput: true,
    } as const;
    reporter(event({ ...backendEnd, reason: "continuation" }));
    reporter(event({ ...backendEnd, reason: "repeat:rate_limit" }));
    expect(output().trimEnd().split("\n")).toEqual([
      "  backend 1.5s · $0.0200 (total $0.0400) · structured output",
      "  backend 1.5s · $0.0200 (total $0.0400) · structured output · repeat:rate_limit",
    ]);
  });

  it("docs/completion.md#cached-verdicts says cached, in place of the time, for a reused outcome", () => {
    const { reporter, output } = capture();
    const reused = {
      type: "validator-end",
      iteration: 2,
      validator: "tests-pass",
      params: {},
    } as const;
    reporter(event({ ...reused, valid: true, durationMs: 0, cached: true }));
    reporter(event({ ...reused, valid: true, durationMs: 700 }));
    expect(output().trimEnd().split("\n")).toEqual([
      "  ✓ tests-pass cached",
      "  ✓ tests-pass 0.7s",
    ]);
  });

  it("docs/completion.md#claims names each refuted claim under the refuted declaration", () => {
    const { reporter, output } = capture();
    reporter(
      event({
        type: "declaration-refuted",
        iteration: 1,
        claimed: "done",
        failed: "tests-pass",
        pattern: "test-failed",
        detail: "failedTests: adds",
        claims: ["you reported validation.tests_passed: true; `npm test` failed: not ok 1"],
        refutedDeclarations: 1,
      }),
    );
    expect(output().trimEnd().split("\n")).toEqual([
      "  declaration refuted by tests-pass (1 so far)",
      "    you reported validation.tests_passed: true; `npm test` failed: not ok 1",
    ]);
  });

  it("colours only when asked", () => {
    const { reporter, output } = capture({ color: true });
    reporter(event(arc[7]!));
    expect(output()).toContain("\x1b[");
  });

  it("draws a status line while the backend works and clears it before the next line", () => {
    const { reporter, output } = capture({ live: true });
    reporter(event(arc[2]!));
    expect(output()).toContain("replay working 0.0s");
    reporter(event(arc[3]!));
    expect(output()).toContain("\r\x1b[2K  backend 1.5s");
    reporter.stop();
  });

  it("counts down a wait for the backend in a terminal, one line per wait elsewhere", async () => {
    let nowMs = 0;
    const live = capture({ live: true, now: () => nowMs });
    const wait = event({
      type: "backend-wait",
      iteration: 1,
      reason: "overloaded",
      waitMs: 12_000,
      attempt: 2,
    });
    live.reporter(wait);
    expect(live.output()).toContain("  waiting 12s (overloaded, attempt 2)\n");
    expect(live.output()).toContain("next try in 12s (overloaded)");
    nowMs = 4_500;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(live.output()).toContain("next try in 7.5s (overloaded)");
    live.reporter.stop();

    const plain = capture();
    plain.reporter(wait);
    expect(plain.output()).toBe("  waiting 12s (overloaded, attempt 2)\n");
  });

  it("names status and action of a declaration together", () => {
    const { reporter, output } = capture();
    reporter(
      event({
        type: "completion-signal",
        iteration: 1,
        declared: true,
        status: "completed",
        action: "complete",
      }),
    );
    expect(output()).toBe("  declared done (status completed, action complete)\n");
  });

  it("ends with the reason's first line and remembers the end it showed", () => {
    const { reporter, output } = capture();
    expect(reporter.shownEnd()).toBeUndefined();
    const reason = "backend crash: agent exited with code 1; stderr:\nTypeError: boom\n  at x";
    reporter(
      event({
        type: "run-end",
        status: "error",
        success: false,
        reason,
        iterations: 1,
        costUsd: 0,
      }),
    );
    expect(output()).toBe(
      "■ error after 1 iteration(s) · $0.0000 · backend crash: agent exited with code 1; stderr: …\n",
    );
    expect(reporter.shownEnd()).toEqual({ success: false, reason });
  });

  it("respects NO_COLOR and non-terminals", () => {
    expect(shouldColor({ isTTY: true }, {})).toBe(true);
    expect(shouldColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(shouldColor({ isTTY: false }, {})).toBe(false);
    expect(shouldColor({ isTTY: true }, { TERM: "dumb" })).toBe(false);
  });
});

describe("the number of tests (docs/integrity.md#baseline)", () => {
  it("shows the count of the runner's summary, and says when the output does not tell", () => {
    const { reporter, output } = capture();
    reporter(
      event({
        type: "baseline",
        checks: [
          { validator: "tests-pass", valid: true, durationMs: 900, tests: 2 },
          { validator: "go-tests", valid: true, durationMs: 900, testRunner: "go" },
        ],
        dirtyFiles: [],
        protectedFiles: 3,
        durationMs: 1000,
      }),
    );
    // vitest's default reporter names no passing test, only its summary.
    const stdout =
      " RUN  v4.1.12 /w\n\n ✓ math.test.js (2 tests) 2ms\n\n Test Files  1 passed (1)\n      Tests  2 passed (2)\n";
    reporter(
      event({
        type: "validator-end",
        iteration: 1,
        validator: "tests-pass",
        valid: true,
        durationMs: 700,
        params: {},
        stdout,
      }),
    );
    expect(output().trimEnd().split("\n")).toEqual([
      "  baseline 1.0s ✓ tests-pass (2 tests) ✓ go-tests (go: tests not counted) · 3 protected",
      "  ✓ tests-pass (2 tests) 0.7s",
    ]);
  });

  it("a baseline that ends while the first query runs (docs/integrity.md#baseline-beside-query) leaves the query's status line", () => {
    let now = 0;
    const { reporter, output } = capture({ live: true, now: () => now });
    reporter(event({ type: "backend-start", iteration: 1, backend: "claude-sdk" }));
    now = 2000;
    reporter(
      event({
        type: "baseline",
        checks: [{ validator: "tests-pass", valid: true, durationMs: 1900, tests: 2 }],
        dirtyFiles: [],
        protectedFiles: 3,
        durationMs: 2000,
      }),
    );
    reporter.stop();
    expect(output()).toContain(
      "  baseline 2.0s ✓ tests-pass (2 tests) · 3 protected\n\r\x1b[2K  … claude-sdk working 2.0s",
    );
  });
});

describe("a refused GitHub command", () => {
  it("shows the command the model tried", () => {
    const { reporter, output } = capture();
    reporter(
      event({
        type: "boundary-attempt",
        iteration: 1,
        command: "gh issue close 7",
        backend: "codex",
      }),
    );
    expect(output()).toContain("refused: gh issue close 7");
  });
});

describe("a plugin's failure (docs/plugins.md#failures)", () => {
  it("names the plugin and where it failed, and whether the run goes on", () => {
    const { reporter, output } = capture();
    const failure = { type: "plugin-error", plugin: "notifier", where: "hooks.onEnd" } as const;
    reporter(event({ ...failure, message: "the webhook answered 500", endsRun: false }));
    reporter(event({ ...failure, message: "refused\nsecond line", endsRun: true }));
    expect(output()).toBe(
      [
        '  plugin "notifier" failed in hooks.onEnd: the webhook answered 500 (the run goes on)',
        '  plugin "notifier" failed in hooks.onEnd: refused …',
        "",
      ].join("\n"),
    );
  });
});

describe("the project's setup as it runs (docs/observe.md#setup-progress)", () => {
  const start = { type: "setup-start", command: "npm ci", index: 1, count: 2 } as const;

  it("a line as each command starts and one as it ends; a failure quotes its meaningful line", () => {
    const { reporter, output } = capture();
    reporter(event(start));
    expect(output()).toBe("  setup npm ci … (1/2)\n");
    reporter(event({ type: "setup", command: "npm ci", exitCode: 0, durationMs: 41_000 }));
    reporter(
      event({
        type: "setup",
        command: "npm run codegen",
        exitCode: 1,
        durationMs: 2100,
        stdout: "\n> proj@1.0.0 codegen\n> node gen.js\n\n",
        stderr: "Error: Cannot find module './schema.json'\nnpm error code 1\n",
      }),
    );
    expect(output().split("\n").slice(1)).toEqual([
      "  setup npm ci ✓ 41s",
      "  setup npm run codegen ✗ exit 1 2.1s · Error: Cannot find module './schema.json'",
      "",
    ]);
  });

  it("counts the running command's seconds on a terminal, and clears it when it ends", () => {
    let now = 0;
    const { reporter, output } = capture({ live: true, now: () => now });
    reporter(event(start));
    now = 1500;
    reporter(event({ type: "setup", command: "npm ci", exitCode: 0, durationMs: 1500 }));
    expect(output()).toBe(
      "  setup npm ci … (1/2)\n\r\u001b[2K  … setup npm ci 0.0s\r\u001b[2K  setup npm ci ✓ 1.5s\n",
    );
  });
});

describe("the model's tool calls and the checks as they happen (docs/observe.md#live-view)", () => {
  const toolCall = (target: string, extra: Partial<RunEventBody> = {}) =>
    ({
      type: "tool-call",
      iteration: 1,
      tool: "Bash",
      action: "command",
      target,
      exitCode: 0,
      failed: false,
      durationMs: 40,
      ...extra,
    }) as RunEventBody;

  it("prints a line per tool call with a command's exit, a failure, and a time of a second or more", () => {
    const { reporter, output } = capture();
    reporter(event(toolCall("npm test", { exitCode: 1, failed: true, durationMs: 2300 })));
    reporter(
      event({
        type: "tool-call",
        iteration: 1,
        tool: "Write",
        action: "write",
        target: "src/a.ts",
        failed: false,
        durationMs: 5,
      }),
    );
    reporter(
      event({
        type: "tool-call",
        iteration: 1,
        tool: "TodoWrite",
        action: "other",
        target: "",
        failed: true,
        durationMs: 5,
      }),
    );
    reporter(event(toolCall("ls")));
    expect(output().trimEnd().split("\n")).toEqual([
      "    run npm test · exit 1 2.3s",
      "    write src/a.ts",
      "    TodoWrite ✗ failed",
      "    run ls · exit 0",
    ]);
  });

  it("in a terminal, the status line names the call under way, then the query again once it ended", () => {
    let now = 0;
    const { reporter, output } = capture({ live: true, now: () => now });
    reporter(event({ type: "backend-start", iteration: 1, backend: "claude-sdk" }));
    now = 1000;
    reporter(
      event({
        type: "tool-start",
        iteration: 1,
        tool: "Bash",
        action: "command",
        target: "npm test",
      }),
    );
    now = 3000;
    reporter(event(toolCall("npm test", { durationMs: 2000 })));
    reporter(
      event({
        type: "backend-end",
        iteration: 1,
        durationMs: 3000,
        costUsd: 0,
        totalCostUsd: 0,
        hasStructuredOutput: true,
      }),
    );
    reporter.stop();
    const text = output();
    expect(text).toContain("\r\x1b[2K  … claude-sdk working 0.0s · $0.0000 so far");
    expect(text).toContain(
      "\r\x1b[2K    run npm test · exit 0 2.0s\n\r\x1b[2K  … claude-sdk working 3.0s",
    );
    expect(text).not.toMatch(/working 3\.0s · \$0\.0000 so far · run npm test/);
    expect(text.endsWith("structured output\n")).toBe(true);
  });

  it("without a terminal, a heartbeat names what is under way whenever nothing was written for the interval", () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const chunks: string[] = [];
      const reporter = makeProgressReporter({
        write: (text) => chunks.push(text),
        live: false,
        color: false,
        verbose: false,
        heartbeatMs: 60_000,
        now: () => now,
      });
      const advance = (ms: number) => {
        now += ms;
        vi.advanceTimersByTime(ms);
      };
      reporter(event({ type: "backend-start", iteration: 1, backend: "claude-sdk" }));
      reporter(
        event({
          type: "tool-start",
          iteration: 1,
          tool: "Bash",
          action: "command",
          target: "sleep 180",
        }),
      );
      advance(59_000);
      expect(chunks).toHaveLength(1);
      advance(1_000);
      advance(60_000);
      advance(30_000);
      reporter(event(toolCall("sleep 180", { durationMs: 150_000 })));
      advance(59_000);
      advance(1_000);
      reporter(event({ type: "validator-start", iteration: 1, validator: "tests-pass" }));
      advance(60_000);
      reporter(
        event({
          type: "validator-end",
          iteration: 1,
          validator: "tests-pass",
          valid: true,
          durationMs: 60_000,
          params: {},
        }),
      );
      advance(300_000);
      expect(chunks.join("").trimEnd().split("\n")).toEqual([
        "  backend claude-sdk working…",
        "  … claude-sdk working 60s · $0.0000 so far · run sleep 180 60s",
        "  … claude-sdk working 120s · $0.0000 so far · run sleep 180 120s",
        "    run sleep 180 · exit 0 150s",
        "  … claude-sdk working 210s · $0.0000 so far",
        "  checking tests-pass…",
        "  … checking tests-pass 60s",
        "  ✓ tests-pass 60s",
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("--quiet writes nothing, and says it showed no end (the caller prints it)", () => {
    const chunks: string[] = [];
    const reporter = makeProgressReporter({
      write: (text) => chunks.push(text),
      live: true,
      color: false,
      verbose: false,
      quiet: true,
    });
    for (const body of arc) reporter(event(body));
    expect(chunks).toEqual([]);
    expect(reporter.shownEnd()).toBeUndefined();
  });
});
