import { appendFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RUN_STATE_VERSION, type RunState } from "../ports/run-state.js";
import { readRunJson } from "./run-folder-reader.js";
import { createRunRecord, readRunState } from "./run-record.js";
import { MARKS_BUDGET_BYTES } from "./state-marks.js";

const BEFORE: RunState = {
  version: RUN_STATE_VERSION,
  runId: "run-1",
  agent: "iterator",
  task: { kind: "text", title: "fix it", body: "fix the bug" },
  args: {},
  cwd: "/tmp/work",
  status: "running",
  reason: "",
  iteration: 2,
  stepId: "continuation.issue",
  pendingPrompt: {
    text: "retry",
    kind: "retry",
    pattern: "test-failed",
    templatePath: "retry.md",
    checkId: "c2",
  },
  counters: { failedChecks: 1, formatRetries: 0, undecidableStreak: 0 },
  totals: {
    costUsd: 0.5,
    usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheCreationTokens: 0 },
    backendMs: 10,
  },
  startedAt: "2030-01-01T00:00:00.000Z",
  updatedAt: "2030-01-01T00:00:01.000Z",
  sideEffects: [],
  warnings: [],
};

/** The state while the checks of iteration 3's declaration run. */
function checkingState(): RunState {
  const { pendingPrompt: _sent, ...rest } = BEFORE;
  return {
    ...rest,
    iteration: 3,
    sessionId: "session-3",
    updatedAt: "2030-01-01T00:00:02.000Z",
    checking: {
      iteration: 3,
      checkId: "c3",
      stepId: "continuation.issue",
      response: { structuredOutput: { status: "completed" }, text: "done", toolsUsed: ["Edit"] },
    },
  };
}

describe("run.json and its marks (docs/record.md#state-marks)", () => {
  let runDir: string;
  beforeEach(async () => {
    runDir = join(await mkdtemp(join(tmpdir(), "closer-marks-")), "run-1");
  });
  afterEach(async () => {
    await rm(join(runDir, ".."), { recursive: true, force: true });
  });

  it("reads the checks under way back from the mark, run.json left as it was", async () => {
    const record = createRunRecord(runDir, { env: {} });
    await record.saveState(BEFORE);
    const runJson = await readFile(join(runDir, "run.json"), "utf8");
    await record.saveState(checkingState());
    await record.flush();
    expect(await readFile(join(runDir, "run.json"), "utf8")).toBe(runJson);
    expect(await readRunState(runDir)).toEqual(checkingState());
  });

  it("ignores a mark once run.json is written again, and a mark cut short", async () => {
    const record = createRunRecord(runDir, { env: {} });
    await record.saveState(BEFORE);
    await record.saveState(checkingState());
    const { checking: _checked, ...after } = checkingState();
    const ended = { ...after, updatedAt: "2030-01-01T00:00:03.000Z" };
    await record.saveState(ended);
    expect(await readRunState(runDir)).toEqual(ended);
    // A mark a kill cut in the middle of its write: no line break at its end.
    await appendFile(join(runDir, "run-marks.jsonl"), '{"base":"');
    expect(await readRunState(runDir)).toEqual(ended);
  });

  it("writes run.json whole for the first state of a process and for an ended run", async () => {
    const record = createRunRecord(runDir, { env: {} });
    await record.saveState(checkingState());
    expect(JSON.parse(await readFile(join(runDir, "run.json"), "utf8"))).toEqual(checkingState());
    const aborted: RunState = { ...checkingState(), status: "aborted", reason: "by SIGINT" };
    await record.saveState(aborted);
    expect(JSON.parse(await readFile(join(runDir, "run.json"), "utf8"))).toEqual(aborted);
    expect(await readRunState(runDir)).toEqual(aborted);
  });

  it("keeps an iteration's end as a mark too, and writes run.json again once the marks outgrow it, the spent ones emptied", async () => {
    const record = createRunRecord(runDir, { env: {} });
    await record.saveState(BEFORE);
    const runJson = await readFile(join(runDir, "run.json"), "utf8");
    const { checking: _checked, ...rest } = checkingState();
    // Iteration 3 refuted: its retry prompt is what a resumed run sends next.
    const ended: RunState = {
      ...rest,
      updatedAt: "2030-01-01T00:00:03.000Z",
      pendingPrompt: {
        ...(BEFORE.pendingPrompt as NonNullable<RunState["pendingPrompt"]>),
        checkId: "c4",
      },
    };
    await record.saveState(checkingState());
    await record.saveState(ended);
    await record.flush();
    expect(await readFile(join(runDir, "run.json"), "utf8")).toBe(runJson);
    expect(await readRunState(runDir)).toEqual(ended);
    // What `closer runs` and `closer show` read is the same state.
    expect(await readRunJson(runDir, "state")).toEqual(ended);

    const marks = () => readFile(join(runDir, "run-marks.jsonl"), "utf8");
    let state = ended;
    let iteration = 3;
    while ((await readFile(join(runDir, "run.json"), "utf8")) === runJson) {
      iteration += 1;
      state = {
        ...state,
        iteration,
        updatedAt: `2030-01-01T00:${String(iteration).padStart(2, "0")}:00.000Z`,
      };
      await record.saveState(state);
      expect((await marks()).length).toBeLessThan(MARKS_BUDGET_BYTES + 4096);
    }
    // The checkpoint: run.json holds the state whole, and the marks it spent are gone.
    expect(JSON.parse(await readFile(join(runDir, "run.json"), "utf8"))).toEqual(state);
    expect(await marks()).toBe("");
    expect(await readRunState(runDir)).toEqual(state);
    await record.saveState({ ...state, stepId: "next.step" });
    expect(await readRunState(runDir)).toEqual({ ...state, stepId: "next.step" });
  });
});
