import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CloserError } from "../errors.js";
import { rebuildRunState } from "./rebuild-run-state.js";

const at = (second: number) => Date.UTC(2030, 0, 1, 0, 0, second);

function lines(events: readonly Record<string, unknown>[]): string {
  return `${events.map((event) => JSON.stringify({ v: 1, runId: "run-1", ...event })).join("\n")}\n`;
}

describe("rebuildRunState", () => {
  let runDir: string;
  beforeEach(async () => {
    runDir = join(await mkdtemp(join(tmpdir(), "closer-rebuild-")), "run-1");
    await mkdir(runDir);
  });
  afterEach(async () => {
    await rm(join(runDir, ".."), { recursive: true, force: true });
  });

  it("takes iteration, step, session, counters and totals from the events, the task from task.json", async () => {
    await writeFile(
      join(runDir, "events.jsonl"),
      `${lines([
        { at: at(0), type: "run-start", agent: "fixer", task: "t", cwd: "/w", resumed: false },
        { at: at(1), type: "definition-snapshot", hash: "abc", files: 3 },
        { at: at(2), type: "iteration-start", iteration: 1, step: "initial" },
        {
          at: at(3),
          type: "backend-end",
          iteration: 1,
          durationMs: 40,
          costUsd: 0.25,
          totalCostUsd: 0.25,
          sessionId: "s-1",
          usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheCreationTokens: 0 },
        },
        { at: at(4), type: "retry-select", iteration: 1, attempt: 1, pattern: "p" },
        { at: at(5), type: "iteration-start", iteration: 2, step: "continuation" },
      ])}{"torn`,
    );
    await writeFile(
      join(runDir, "task.json"),
      JSON.stringify({ task: { kind: "text", title: "t", body: "the body" }, args: { n: 1 } }),
    );
    const state = await rebuildRunState(runDir, "initial");
    expect(state).toMatchObject({
      runId: "run-1",
      agent: "fixer",
      cwd: "/w",
      definition: { hash: "abc", files: 3 },
      task: { body: "the body" },
      args: { n: 1 },
      status: "error",
      iteration: 2,
      stepId: "continuation",
      sessionId: "s-1",
      counters: { failedChecks: 1, formatRetries: 0, undecidableStreak: 0 },
      totals: { costUsd: 0.25, backendMs: 40, usage: { inputTokens: 10, outputTokens: 5 } },
      startedAt: "2030-01-01T00:00:00.000Z",
    });
  });

  it("rebuilds the totals by reason when every query names its reason (docs/observe.md#receipts)", async () => {
    const answer = (second: number, reason: string | undefined, costUsd: number) => ({
      at: at(second),
      type: "backend-end",
      iteration: 1,
      durationMs: 10,
      costUsd,
      totalCostUsd: 0,
      ...(reason === undefined ? {} : { reason }),
    });
    const start = { at: at(0), type: "run-start", agent: "fixer", task: "t", cwd: "/w" };
    const task = JSON.stringify({ task: { kind: "text", title: "t", body: "b" }, args: {} });
    await writeFile(join(runDir, "task.json"), task);
    await writeFile(
      join(runDir, "events.jsonl"),
      lines([start, answer(1, "initial", 0.1), answer(2, "repeat:rate_limit", 0.2)]),
    );
    const state = await rebuildRunState(runDir, "initial");
    expect(state.totals.costByReason).toMatchObject({
      initial: { queries: 1, costUsd: 0.1, durationMs: 10 },
      "repeat:rate_limit": { queries: 1, costUsd: 0.2 },
    });
    await writeFile(
      join(runDir, "events.jsonl"),
      lines([start, answer(1, undefined, 0.1), answer(2, "continuation", 0.2)]),
    );
    expect((await rebuildRunState(runDir, "initial")).totals.costByReason).toBeUndefined();
  });

  it("says exactly what is missing when the folder can't give a resumable state", async () => {
    await mkdir(join(runDir, "definition"));
    await writeFile(
      join(runDir, "events.jsonl"),
      lines([{ at: at(0), type: "baseline", checks: [], dirtyFiles: [], protectedFiles: 1 }]),
    );
    const refused = rebuildRunState(runDir, "initial");
    await expect(refused).rejects.toThrow("run.json of run run-1 cannot be rebuilt");
    const error = (await refused.catch((caught: unknown) => caught)) as CloserError;
    const missing = error.fields.found ?? "";
    expect(missing).toContain("a run-start event");
    expect(missing).toContain("task.json");
    expect(missing).toContain("baseline.json");
    expect(missing).toContain("a definition-snapshot event");
  });
});
