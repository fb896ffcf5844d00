import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CloserError } from "../errors.js";
import { findRuns } from "../record/find-runs.js";
import { resolveRunId } from "./find-runs.js";
import { readRunView } from "./read-run-view.js";

const CORPUS = join(import.meta.dirname, "../../test/fixtures/recorded-runs");

let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "closer-run-view-"));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A copy of a corpus run to damage. */
async function copyOf(name: string): Promise<string> {
  const dir = join(scratch, name);
  await cp(join(CORPUS, name), dir, { recursive: true });
  return dir;
}

describe("readRunView on recorded runs", () => {
  it("reads a run completed after an undecidable retry, a test-failed retry and a rate limit", async () => {
    const view = await readRunView(join(CORPUS, "completed-after-retries"));
    expect(view).toMatchObject({
      agent: "tasker",
      status: "completed",
      iterations: 3,
      attempts: 1,
      task: { kind: "text", title: "make add() add" },
      end: { status: "completed", success: true, refutedDeclarations: 1 },
    });
    expect(view.receipts.map((receipt) => [receipt.iteration, receipt.reason])).toEqual([
      [1, "initial"],
      [2, "retry:undecidable"],
      [3, "retry:test-failed"],
      [3, "repeat:rate_limit"],
    ]);
    expect(view.receipts[2]?.error).toBe("rate_limit");
    expect(view.costByReason.map((total) => [total.reason, total.queries])).toEqual([
      ["initial", 1],
      ["retry:undecidable", 1],
      ["retry:test-failed", 1],
      ["repeat:rate_limit", 1],
    ]);
    expect(view.costUsd).toBeCloseTo(0.04);
    const second = view.timeline[1];
    expect(second?.prompt).toMatchObject({ kind: "retry", file: "prompts/iteration-002.md" });
    expect(second?.declaration).toMatchObject({ decision: "complete", source: "structured" });
    expect(second?.retry).toEqual({
      pattern: "test-failed",
      templatePath: "prompts/steps/retry/task/f_failed_test-failed.md",
      attempt: 1,
      maxAttempts: 3,
    });
    const failed = second?.checks.find((check) => check.name === "tests-pass");
    expect(failed).toMatchObject({ kind: "validator", valid: false, pattern: "test-failed" });
    expect(failed?.output).toContain("adds two numbers");
    expect(second?.checks.map((check) => check.kind)).toEqual([
      "validator",
      "validator",
      "guard",
      "guard",
    ]);
    expect(view.baseline?.checks.map((check) => [check.validator, check.valid])).toEqual([
      ["git-clean", true],
      ["tests-pass", false],
    ]);
  });

  it("gives a resumed run its attempts and each iteration the attempt it ran in", async () => {
    const view = await readRunView(join(CORPUS, "resumed"));
    expect(view.attempts).toBe(2);
    expect(view.timeline.map((iteration) => [iteration.iteration, iteration.attempt])).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
    ]);
    expect(view.receipts.map((receipt) => receipt.reason)).toEqual([
      "initial",
      "retry:test-failed",
      "continuation",
    ]);
  });

  it("keeps the closure review apart from the iteration's own prompt", async () => {
    const view = await readRunView(join(CORPUS, "closure-review"));
    const first = view.timeline[0];
    expect(first?.prompt?.kind).toBe("step");
    expect(first?.receipts.map((receipt) => receipt.reason)).toEqual(["initial", "closure-review"]);
    const review = first?.checks.find((check) => check.kind === "closure-review");
    expect(review?.valid).toBe(false);
    expect(review?.output).toBeTruthy();
    expect(view.costByReason.find((total) => total.reason === "closure-review")?.queries).toBe(2);
  });

  it("derives retry:format for a format retry recorded without reasons", async () => {
    const view = await readRunView(join(CORPUS, "format-retry"));
    expect(view.receipts.map((receipt) => receipt.reason)).toEqual(["initial", "retry:format"]);
    expect(view.timeline[0]?.format?.valid).toBe(false);
    expect(view.timeline[1]?.prompt?.kind).toBe("format-retry");
  });

  it.each([
    ["max-iterations", "max_iterations"],
    ["retries-exhausted", "retries_exhausted"],
    ["budget-exhausted", "budget_exhausted"],
    ["aborted", "aborted"],
    ["error-undecidable", "error"],
    ["blocked", "blocked"],
    ["fake-claude", "completed"],
  ])("reads the %s run as %s", async (name, status) => {
    const view = await readRunView(join(CORPUS, name));
    expect(view.status).toBe(status);
    expect(view.end.status).toBe(status);
    expect(view.endedAt).toBeTruthy();
    expect(view.timeline.length).toBe(view.iterations);
    expect(view.receipts.length).toBeGreaterThan(0);
  });

  it("takes the reason a backend-end names over the one the prompts suggest", async () => {
    const dir = await copyOf("max-iterations");
    const events = await readFile(join(dir, "events.jsonl"), "utf8");
    const named = events.replace('"type":"backend-end",', '"type":"backend-end","reason":"named",');
    await writeFile(join(dir, "events.jsonl"), named);
    const view = await readRunView(dir);
    expect(view.receipts[0]?.reason).toBe("named");
  });

  it("shows a plugin's failure with the warnings of its iteration (docs/plugins.md#failures)", async () => {
    const dir = await copyOf("max-iterations");
    const events = (await readFile(join(dir, "events.jsonl"), "utf8")).trimEnd().split("\n");
    const start = events.findIndex((line) => line.includes('"type":"iteration-start"'));
    const failure = JSON.stringify({
      v: 1,
      at: 0,
      runId: "r",
      type: "plugin-error",
      plugin: "webhook-notifier",
      where: "hooks.beforeQuery",
      message: "the webhook answered 500",
      endsRun: false,
      iteration: 1,
    });
    events.splice(start + 1, 0, failure);
    await writeFile(join(dir, "events.jsonl"), `${events.join("\n")}\n`);
    const view = await readRunView(dir);
    expect(view.timeline[0]?.warnings).toContain(
      'plugin "webhook-notifier" failed in hooks.beforeQuery: the webhook answered 500',
    );
  });
});

describe("readRunView on damaged runs", () => {
  it("reads a run that crashed: no run-end, a torn last line, run.json still running", async () => {
    const dir = await copyOf("completed-after-retries");
    const lines = (await readFile(join(dir, "events.jsonl"), "utf8")).trimEnd().split("\n");
    const kept = lines.slice(0, -1);
    const torn = `${kept.join("\n")}\n${(kept.pop() ?? "").slice(0, 40)}`;
    await writeFile(join(dir, "events.jsonl"), torn);
    const state = JSON.parse(await readFile(join(dir, "run.json"), "utf8"));
    await writeFile(
      join(dir, "run.json"),
      JSON.stringify({ ...state, status: "running", reason: "", endedAt: undefined }),
    );
    const view = await readRunView(dir);
    expect(view.status).toBe("running");
    expect(view.endedAt).toBeUndefined();
    expect(view.end.success).toBe(false);
    expect(view.timeline.map((iteration) => iteration.iteration)).toEqual([1, 2, 3]);
  });

  it("takes the checks of a baseline kept before they ended from its event (docs/integrity.md#baseline-beside-query)", async () => {
    const dir = await copyOf("completed-after-retries");
    const measured = JSON.parse(await readFile(join(dir, "baseline.json"), "utf8"));
    const pending = { ...measured, checks: [], inventories: {}, checksPending: true };
    await writeFile(join(dir, "baseline.json"), JSON.stringify(pending));
    const view = await readRunView(dir);
    expect(view.baseline?.checks.map((check) => check.validator)).toEqual(
      measured.checks.map((check: { validator: string }) => check.validator),
    );
  });

  it("reads a run whose run.json is damaged from its events", async () => {
    const dir = await copyOf("retries-exhausted");
    await writeFile(join(dir, "run.json"), "{ not json");
    await rm(join(dir, "task.json"));
    const view = await readRunView(dir);
    expect(view.agent).toBe("tasker");
    expect(view.status).toBe("retries_exhausted");
    expect(view.task.title).toBe("make add() add");
    expect(view.iterations).toBe(3);
    expect(view.costUsd).toBeCloseTo(0.03);
  });

  it("reads a check's output whole from its payload file", async () => {
    const dir = join(scratch, "20300101-000000-paylod");
    await mkdir(join(dir, "payloads"), { recursive: true });
    const whole = `${"noise\n".repeat(1000)}FAILED: the last line`;
    await writeFile(join(dir, "payloads/0001-stdout.txt.gz"), gzipSync(whole));
    const event = (body: Record<string, unknown>) =>
      JSON.stringify({ v: 1, at: 1893456000000, runId: "20300101-000000-paylod", ...body });
    await writeFile(
      join(dir, "events.jsonl"),
      [
        event({
          type: "run-start",
          agent: "a",
          task: "t",
          cwd: "/",
          maxIterations: 1,
          resumed: false,
        }),
        event({ type: "iteration-start", iteration: 1, step: "initial.task" }),
        event({
          type: "validator-end",
          iteration: 1,
          validator: "tests",
          valid: false,
          durationMs: 1,
          params: {},
          stdout: "noise…[cut; whole in payloads/0001-stdout.txt.gz]…",
          payloads: { stdout: "payloads/0001-stdout.txt.gz" },
        }),
      ].join("\n"),
    );
    const view = await readRunView(dir);
    expect(view.status).toBe("running");
    expect(view.timeline[0]?.checks[0]?.output).toContain("FAILED: the last line");
    expect(view.timeline[0]?.checks[0]?.output).not.toContain("[cut");
  });
});

describe("findRuns and resolveRunId", () => {
  beforeEach(async () => {
    for (const id of [
      "20300101-000000-aaaaaa",
      "20300102-000000-bbbbbb",
      "20300102-000000-bbcccc",
    ]) {
      await mkdir(join(scratch, id));
    }
  });

  it("lists the runs newest first", async () => {
    expect((await findRuns(scratch)).map((run) => run.runId)).toEqual([
      "20300102-000000-bbcccc",
      "20300102-000000-bbbbbb",
      "20300101-000000-aaaaaa",
    ]);
    expect(await findRuns(join(scratch, "missing"))).toEqual([]);
  });

  it("resolves last, a whole id and a unique prefix", async () => {
    expect((await resolveRunId(scratch, "last")).runId).toBe("20300102-000000-bbcccc");
    expect((await resolveRunId(scratch, "20300101-000000-aaaaaa")).runDir).toBe(
      join(scratch, "20300101-000000-aaaaaa"),
    );
    expect((await resolveRunId(scratch, "20300101")).runId).toBe("20300101-000000-aaaaaa");
  });

  it("refuses an unknown or ambiguous id with the runs folder and how to list runs", async () => {
    const unknown = await resolveRunId(scratch, "2029").catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(CloserError);
    expect((unknown as CloserError).code).toBe("usage_error");
    expect((unknown as CloserError).describe()).toContain(scratch);
    expect((unknown as CloserError).describe()).toContain("closer runs");
    const ambiguous = await resolveRunId(scratch, "20300102").catch((error: unknown) => error);
    expect((ambiguous as CloserError).code).toBe("usage_error");
    expect((ambiguous as CloserError).message).toContain("ambiguous");
    const none = await resolveRunId(join(scratch, "empty"), "last").catch(
      (error: unknown) => error,
    );
    expect((none as CloserError).code).toBe("usage_error");
  });
});
