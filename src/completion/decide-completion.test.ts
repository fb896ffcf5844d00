import { describe, expect, it } from "vitest";
import { DEFAULT_COMPLETION_SIGNAL } from "./completion-signal.js";
import { type DecisionInput, decideCompletion } from "./decide-completion.js";

const CHECK_ID = "check-current";
const STARTED_AT_MS = 1_000_000;
const FRESH_MS = STARTED_AT_MS + 5_000;
const OLD_MS = STARTED_AT_MS - 5_000;

function input(overrides: Partial<DecisionInput> = {}): DecisionInput {
  return {
    text: "",
    completionSignal: DEFAULT_COMPLETION_SIGNAL,
    checkId: CHECK_ID,
    checkStartedAtMs: STARTED_AT_MS,
    previousUndecidableStreak: 0,
    maxUndecidable: 3,
    ...overrides,
  };
}

function jsonFile(body: Record<string, unknown>, modifiedAtMs = FRESH_MS) {
  return { text: JSON.stringify(body), modifiedAtMs };
}

describe("decideCompletion: the channels of docs/completion.md#decision-channels", () => {
  const cases: {
    name: string;
    given: Partial<DecisionInput>;
    source: string;
    decision: string;
    reason?: string;
    stale?: boolean;
    checkIdMatch?: boolean;
  }[] = [
    {
      name: "docs/completion.md#decision-channels structured: a completion status is complete",
      given: { structuredOutput: { status: "completed" } },
      source: "structured",
      decision: "complete",
    },
    {
      name: "docs/completion.md#decision-channels structured: a completion next action is complete",
      given: { structuredOutput: { status: "working", next_action: { action: "closing" } } },
      source: "structured",
      decision: "complete",
    },
    {
      name: "docs/completion.md#decision-channels structured: a status outside completionSignal is incomplete",
      given: { structuredOutput: { status: "in_progress", next_action: { action: "continue" } } },
      source: "structured",
      decision: "incomplete",
    },
    {
      name: "docs/completion.md#decision-channels structured: output that is not an object is undecidable",
      given: { structuredOutput: ["completed"] },
      source: "structured",
      decision: "undecidable",
      reason: "structured-output-not-object",
    },
    {
      name: "docs/completion.md#decision-channels structured beats the decision file",
      given: {
        structuredOutput: { status: "in_progress" },
        decisionFile: jsonFile({ decision: "complete", check_id: CHECK_ID }),
      },
      source: "structured",
      decision: "incomplete",
    },
    {
      name: "docs/completion.md#decision-channels structured beats a stale decision file",
      given: {
        structuredOutput: { status: "completed" },
        decisionFile: jsonFile({ decision: "incomplete", check_id: "check-old" }),
      },
      source: "structured",
      decision: "complete",
    },
    {
      name: "docs/completion.md#decision-channels structured output without a declaration lets the file speak",
      given: {
        structuredOutput: { notes: "done" },
        decisionFile: jsonFile({ decision: "complete", check_id: CHECK_ID }),
      },
      source: "file-json",
      decision: "complete",
      checkIdMatch: true,
    },
    {
      name: "docs/completion.md#decision-channels structured output without a declaration and nothing else is incomplete",
      given: { structuredOutput: { notes: "still working" } },
      source: "structured",
      decision: "incomplete",
      reason: "no-declaration",
    },
    {
      name: "docs/completion.md#decision-channels structured-from-text: the last declaring JSON object in the text",
      given: { text: 'Done.\n```json\n{"status": "completed", "summary": "all green"}\n```' },
      source: "structured-from-text",
      decision: "complete",
    },
    {
      name: "docs/completion.md#decision-channels structured-from-text: JSON without a declaration is not a verdict",
      given: { text: 'package.json now has {"name": "demo"}\nCOMPLETE' },
      source: "marker",
      decision: "complete",
    },
    {
      name: "docs/completion.md#decision-channels structured-from-text is not read when the backend gave structured output",
      given: { structuredOutput: { status: "in_progress" }, text: '{"status": "completed"}' },
      source: "structured",
      decision: "incomplete",
    },
    {
      name: "docs/completion.md#decision-channels file-json with the current check id decides",
      given: {
        decisionFile: jsonFile({ decision: "incomplete", check_id: CHECK_ID, reasons: ["x"] }),
      },
      source: "file-json",
      decision: "incomplete",
      checkIdMatch: true,
    },
    {
      name: "docs/completion.md#decision-channels file-json: the decision word is read case-insensitively",
      given: { decisionFile: jsonFile({ decision: " Complete ", check_id: CHECK_ID }) },
      source: "file-json",
      decision: "complete",
    },
    {
      name: "docs/completion.md#decision-channels file-json beats a marker in the text",
      given: {
        text: "COMPLETE",
        decisionFile: jsonFile({ decision: "incomplete", check_id: CHECK_ID }),
      },
      source: "file-json",
      decision: "incomplete",
    },
    {
      name: "docs/completion.md#decision-channels a stale decision file is ignored even when the text says COMPLETE",
      given: {
        text: "All done.\nCOMPLETE",
        decisionFile: jsonFile({ decision: "complete", check_id: "check-previous" }),
      },
      source: "file-json",
      decision: "undecidable",
      reason: "check-id-mismatch",
      stale: true,
      checkIdMatch: false,
    },
    {
      name: "docs/completion.md#decision-channels a stale file with a matching time but another check id is still stale",
      given: { decisionFile: jsonFile({ decision: "complete", check_id: "check-x" }, FRESH_MS) },
      source: "file-json",
      decision: "undecidable",
      reason: "check-id-mismatch",
      stale: true,
    },
    {
      name: "docs/completion.md#decision-channels a file with the current check id counts even when its time is older",
      given: { decisionFile: jsonFile({ decision: "complete", check_id: CHECK_ID }, OLD_MS) },
      source: "file-json",
      decision: "complete",
      checkIdMatch: true,
    },
    {
      name: "docs/completion.md#decision-channels a file without check id counts when written after the check started",
      given: { decisionFile: jsonFile({ decision: "complete" }, FRESH_MS) },
      source: "file-json",
      decision: "complete",
    },
    {
      name: "docs/completion.md#decision-channels a file without check id written before the check started is stale",
      given: { text: "COMPLETE", decisionFile: jsonFile({ decision: "complete" }, OLD_MS) },
      source: "file-json",
      decision: "undecidable",
      reason: "file-older-than-check",
      stale: true,
    },
    {
      name: "docs/completion.md#decision-channels an unknown decision word is undecidable, not complete",
      given: { decisionFile: jsonFile({ decision: "done", check_id: CHECK_ID }) },
      source: "file-json",
      decision: "undecidable",
      reason: "unknown-decision-word",
      checkIdMatch: true,
    },
    {
      name: "docs/completion.md#decision-channels a JSON decision file without a decision is undecidable",
      given: { decisionFile: jsonFile({ check_id: CHECK_ID, reasons: [] }) },
      source: "file-json",
      decision: "undecidable",
      reason: "missing-decision",
    },
    {
      name: "docs/completion.md#decision-channels invalid JSON in the decision file is undecidable",
      given: {
        text: "COMPLETE",
        decisionFile: { text: '{"decision": "complete",', modifiedAtMs: FRESH_MS },
      },
      source: "file-json",
      decision: "undecidable",
      reason: "invalid-json",
    },
    {
      name: "docs/completion.md#decision-channels file-legacy: the last PASS/FAIL/COMPLETE/INCOMPLETE line wins",
      given: { decisionFile: { text: "FAIL\nnotes\npass\n", modifiedAtMs: FRESH_MS } },
      source: "file-legacy",
      decision: "complete",
    },
    {
      name: "docs/completion.md#decision-channels file-legacy: FAIL after COMPLETE is incomplete",
      given: { decisionFile: { text: "COMPLETE\n  fail  ", modifiedAtMs: FRESH_MS } },
      source: "file-legacy",
      decision: "incomplete",
    },
    {
      name: "docs/completion.md#decision-channels file-legacy: a line that only begins with a word is not one",
      given: { decisionFile: { text: "PASS with warnings", modifiedAtMs: FRESH_MS } },
      source: "file-legacy",
      decision: "undecidable",
      reason: "unknown-decision-word",
    },
    {
      name: "docs/completion.md#decision-channels file-legacy: an empty file is undecidable",
      given: { decisionFile: { text: "  \n", modifiedAtMs: FRESH_MS } },
      source: "file-legacy",
      decision: "undecidable",
      reason: "empty-decision-file",
    },
    {
      name: "docs/completion.md#decision-channels file-legacy: an old file is stale and a marker may not override it",
      given: { text: "COMPLETE", decisionFile: { text: "PASS", modifiedAtMs: OLD_MS } },
      source: "file-legacy",
      decision: "undecidable",
      reason: "file-older-than-check",
      stale: true,
    },
    {
      name: "docs/completion.md#decision-channels marker: a line consisting only of COMPLETE",
      given: { text: "I fixed the bug.\n  COMPLETE  \n" },
      source: "marker",
      decision: "complete",
    },
    {
      name: "docs/completion.md#decision-channels marker: <promise>COMPLETE</promise> is a marker",
      given: { text: "Work finished.\n<promise>COMPLETE</promise>" },
      source: "marker",
      decision: "complete",
    },
    {
      name: "docs/completion.md#decision-channels marker: the last marker line wins",
      given: { text: "COMPLETE\nwait, one test fails\nINCOMPLETE" },
      source: "marker",
      decision: "incomplete",
    },
    {
      name: "docs/completion.md#decision-channels marker: COMPLETE the task later is not a marker",
      given: { text: "COMPLETE the task later" },
      source: "none",
      decision: "undecidable",
      reason: "no-decision",
    },
    {
      name: "docs/completion.md#decision-channels marker: a word inside a sentence is not a marker",
      given: { text: "The work is INCOMPLETE because tests fail." },
      source: "none",
      decision: "undecidable",
    },
    {
      name: "docs/completion.md#decision-channels Failed to connect on stderr is not a verdict",
      given: { text: "", stderr: "Failed to connect\nFAIL\nCOMPLETE\n" },
      source: "none",
      decision: "undecidable",
      reason: "no-decision",
    },
    {
      name: "docs/completion.md#decision-channels stderr never overrides the text",
      given: { text: "INCOMPLETE", stderr: "COMPLETE" },
      source: "marker",
      decision: "incomplete",
    },
    {
      name: "docs/completion.md#decision-channels none: nothing usable is undecidable",
      given: { text: "I looked around." },
      source: "none",
      decision: "undecidable",
      reason: "no-decision",
    },
  ];

  for (const testCase of cases) {
    it(testCase.name, () => {
      const result = decideCompletion(input(testCase.given));
      expect(result.source).toBe(testCase.source);
      expect(result.decision).toBe(testCase.decision);
      if (testCase.reason !== undefined) expect(result.reason).toBe(testCase.reason);
      if (testCase.stale !== undefined) expect(result.stale === true).toBe(testCase.stale);
      if (testCase.checkIdMatch !== undefined)
        expect(result.checkIdMatch).toBe(testCase.checkIdMatch);
      expect(result.detail.length).toBeGreaterThan(0);
    });
  }

  it("docs/completion.md#decision-channels a decided result from a file carries its reasons", () => {
    const result = decideCompletion(
      input({
        decisionFile: jsonFile({
          decision: "incomplete",
          check_id: CHECK_ID,
          reasons: ["lint fails", 3],
        }),
      }),
    );
    expect(result.reasons).toEqual(["lint fails"]);
  });
});

describe("decideCompletion: the undecidable streak", () => {
  it("docs/completion.md#undecidable undecidable counts into the streak and a decided result resets it", () => {
    const undecided = decideCompletion(input({ previousUndecidableStreak: 2 }));
    expect(undecided.undecidableStreak).toBe(3);
    const decided = decideCompletion(input({ previousUndecidableStreak: 2, text: "INCOMPLETE" }));
    expect(decided.undecidableStreak).toBe(0);
    expect(decided.exhausted).toBe(false);
  });

  it("docs/completion.md#undecidable the streak reaches the limit: maxUndecidable results are allowed, the next one is exhausted", () => {
    let streak = 0;
    const exhaustedAt: number[] = [];
    for (let check = 1; check <= 5; check += 1) {
      const result = decideCompletion(
        input({ previousUndecidableStreak: streak, maxUndecidable: 3 }),
      );
      streak = result.undecidableStreak;
      if (result.exhausted) exhaustedAt.push(check);
    }
    expect(exhaustedAt[0]).toBe(4);
  });

  it("docs/completion.md#undecidable the exhausted message names the source, the check id match and the parse reason", () => {
    const result = decideCompletion(
      input({
        previousUndecidableStreak: 3,
        decisionFile: jsonFile({ decision: "complete", check_id: "check-old" }),
      }),
    );
    expect(result.exhausted).toBe(true);
    expect(result.message).toContain("file-json");
    expect(result.message).toContain("did not match");
    expect(result.message).toContain("check-id-mismatch");
  });

  it("docs/completion.md#undecidable a stale file counts into the streak like any undecidable result", () => {
    const result = decideCompletion(
      input({
        previousUndecidableStreak: 1,
        decisionFile: jsonFile({ decision: "complete", check_id: "x" }),
      }),
    );
    expect(result.undecidableStreak).toBe(2);
  });
});

describe("decideCompletion: blocked and refused decision files", () => {
  it("docs/completion.md#blocked a decision file saying BLOCKED is blocked, with its reasons, and resets the streak", () => {
    const decision = decideCompletion(
      input({
        previousUndecidableStreak: 2,
        decisionFile: jsonFile({ decision: "BLOCKED", check_id: CHECK_ID, reasons: ["a", "b"] }),
      }),
    );
    expect(decision).toMatchObject({
      source: "file-json",
      decision: "blocked",
      blockedReason: "a; b",
      undecidableStreak: 0,
    });
  });

  it("docs/completion.md#blocked a structured blocked status is blocked, before any decision file", () => {
    const decision = decideCompletion(
      input({
        structuredOutput: { status: "blocked", next_action: { action: "continue", reason: "why" } },
        decisionFile: jsonFile({ decision: "complete", check_id: CHECK_ID }),
      }),
    );
    expect(decision).toMatchObject({
      source: "structured",
      decision: "blocked",
      blockedReason: "why",
    });
  });

  it("docs/completion.md#decision-file a refused file speaks as undecidable with its reason, over a marker", () => {
    const decision = decideCompletion(
      input({
        text: "COMPLETE",
        decisionFile: {
          text: "",
          modifiedAtMs: FRESH_MS,
          refused: { reason: "decision-file-too-large", detail: "too big" },
        },
      }),
    );
    expect(decision).toMatchObject({
      source: "file-json",
      decision: "undecidable",
      reason: "decision-file-too-large",
      detail: "too big",
      undecidableStreak: 1,
    });
  });
});
