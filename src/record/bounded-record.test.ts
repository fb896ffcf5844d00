import { mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cutText } from "../bounded-text.js";
import { isCloserError } from "../errors.js";
import { EVENT_FORMAT_VERSION, type RunEvent } from "../ports/events.js";
import { RUN_STATE_VERSION, type RunState } from "../ports/run-state.js";
import { createRunRecord } from "./run-record.js";

function warning(message: string): RunEvent {
  return { v: EVENT_FORMAT_VERSION, at: 1, runId: "run-1", type: "warning", message };
}

function stateOf(runDir: string): RunState {
  return {
    version: RUN_STATE_VERSION,
    runId: "run-1",
    agent: "iterator",
    task: { kind: "text", title: "fix it", body: "" },
    args: {},
    cwd: runDir,
    status: "running",
    reason: "",
    iteration: 1,
    stepId: "initial.issue",
    counters: { failedChecks: 0, formatRetries: 0, undecidableStreak: 0 },
    totals: {
      costUsd: 0,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      backendMs: 0,
    },
    startedAt: "2030-01-01T00:00:00.000Z",
    updatedAt: "2030-01-01T00:00:00.000Z",
    sideEffects: [],
    warnings: [],
  };
}

describe("the bounded record", () => {
  let runDir: string;
  beforeEach(async () => {
    runDir = join(await mkdtemp(join(tmpdir(), "closer-bounded-")), "run-1");
  });
  afterEach(async () => {
    await rm(join(runDir, ".."), { recursive: true, force: true });
  });

  it("keeps head and tail of a text and says how much it cut", () => {
    const text = `${"a".repeat(1000)}${"b".repeat(1000)}`;
    expect(cutText(text, 100)).toBe(`${"a".repeat(50)}…[cut 1.9 kB]…${"b".repeat(50)}`);
    expect(cutText("short", 100)).toBe("short");
  });

  it("cuts a long event text, keeps it whole in a gzipped payload, and redacts both", async () => {
    const secret = "s3cr3t-value-123";
    const record = createRunRecord(runDir, { env: { API_TOKEN: secret }, maxFieldBytes: 2048 });
    const long = `${secret} start ${"x".repeat(100_000)} end`;
    await record.emit(warning(long));
    await record.flush();
    const event = JSON.parse(await readFile(join(runDir, "events.jsonl"), "utf8"));
    expect(event.message).toMatch(/^\[redacted\] start x+…\[cut 98\.\d kB; whole in payloads\//);
    expect(event.message.endsWith("x end")).toBe(true);
    const whole = gunzipSync(await readFile(join(runDir, event.payloads.message))).toString();
    expect(whole).toBe(long.replace(secret, "[redacted]"));
  });

  it("never writes an events line over 1 MiB, however many long fields an event has", async () => {
    const record = createRunRecord(runDir, { env: {}, maxFieldBytes: 8 * 1024 * 1024 });
    const fields = Object.fromEntries(
      ["a", "b", "c"].map((key) => [key, key.repeat(3 * 1024 * 1024)]),
    );
    await record.emit({ ...warning("many"), ...fields } as RunEvent);
    const line = await readFile(join(runDir, "events.jsonl"), "utf8");
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(1024 * 1024 + 1);
    expect(JSON.parse(line).message).toBe("many");
  });

  it("ends in a record_error naming the file and the cause when the disk is full", async () => {
    const record = createRunRecord(runDir, { env: {} });
    await record.emit(warning("first"));
    await rm(join(runDir, "events.jsonl"));
    await symlink("/dev/full", join(runDir, "events.jsonl"));
    // The record looks for a replaced events.jsonl when it writes run.json.
    await record.saveState(stateOf(record.runDir));
    const failed = await record.emit(warning("second")).catch((error: unknown) => error);
    expect(isCloserError(failed) && failed.code).toBe("record_error");
    expect(String((failed as Error).message)).toContain("no space left on the disk (ENOSPC)");
    await expect(record.flush()).rejects.toThrow(/ENOSPC/);
  });
});
