import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CloserError } from "../errors.js";
import { EVENT_FORMAT_VERSION, type RunEvent } from "../ports/events.js";
import { RUN_STATE_VERSION, type RunState } from "../ports/run-state.js";
import { readDiff } from "./run-folder-reader.js";
import { createRunRecord, readRunState } from "./run-record.js";

function makeState(overrides: Partial<RunState> = {}): RunState {
  return {
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
    ...overrides,
  };
}

function warning(message: string): RunEvent {
  return { v: EVENT_FORMAT_VERSION, at: 1, runId: "run-1", type: "warning", message };
}

describe("createRunRecord", () => {
  let runDir: string;
  beforeEach(async () => {
    runDir = join(await mkdtemp(join(tmpdir(), "closer-record-")), "run-1");
  });
  afterEach(async () => {
    await rm(join(runDir, ".."), { recursive: true, force: true });
  });

  it("appends one JSON line per event, in the order given", async () => {
    const record = createRunRecord(runDir, { env: {} });
    const writes = ["first", "second", "third"].map((message) => record.emit(warning(message)));
    await Promise.all(writes);
    await record.flush();
    const lines = (await readFile(join(runDir, "events.jsonl"), "utf8")).trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).message)).toEqual(["first", "second", "third"]);
  });

  it("keeps appending after run-end, and after another writer of the same folder", async () => {
    const record = createRunRecord(runDir, { env: {} });
    const end: RunEvent = { ...warning("ignored"), type: "run-end" } as unknown as RunEvent;
    await record.emit(warning("first"));
    await record.emit(end);
    const resumed = createRunRecord(runDir, { env: {} });
    await resumed.emit(warning("resumed"));
    await record.emit(warning("late"));
    const lines = (await readFile(join(runDir, "events.jsonl"), "utf8")).trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).type)).toEqual([
      "warning",
      "run-end",
      "warning",
      "warning",
    ]);
    expect(lines.map((line) => JSON.parse(line).message)).toEqual([
      "first",
      "ignored",
      "resumed",
      "late",
    ]);
  });

  it("rewrites run.json whole and leaves no temp file behind", async () => {
    const record = createRunRecord(runDir, { env: {} });
    await record.saveState(makeState({ iteration: 1 }));
    await record.saveState(makeState({ iteration: 2 }));
    expect((await readRunState(runDir)).iteration).toBe(2);
    expect((await readdir(runDir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("keeps the states in the order saved, the end of the run last", async () => {
    const record = createRunRecord(runDir, { env: {} });
    const writes = [
      record.saveState(makeState({ iteration: 3 })),
      record.saveState(makeState({ iteration: 3, status: "max_iterations", reason: "cap" })),
    ];
    await Promise.all(writes);
    await record.flush();
    expect(await readRunState(runDir)).toMatchObject({ iteration: 3, status: "max_iterations" });
    expect((await readdir(runDir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("has a running state in run.json as soon as saveState resolves", async () => {
    const record = createRunRecord(runDir, { env: {} });
    await record.saveState(makeState({ iteration: 4 }));
    expect(JSON.parse(await readFile(join(runDir, "run.json"), "utf8")).iteration).toBe(4);
  });

  it("keeps each iteration's prompt and transcript under numbered names", async () => {
    const record = createRunRecord(runDir, { env: {} });
    await record.savePrompt(3, "do the work");
    await record.savePrompt(3, "review the work", "closure-review");
    await record.saveTranscript(3, [{ role: "assistant", content: "done" }]);
    expect(await readFile(join(runDir, "prompts", "iteration-003.md"), "utf8")).toBe("do the work");
    expect(await readdir(join(runDir, "prompts"))).toContain("iteration-003-closure-review.md");
    const transcript = JSON.parse(
      await readFile(join(runDir, "transcripts", "iteration-003.json"), "utf8"),
    );
    expect(transcript[0].content).toBe("done");
  });

  it("redacts the values of secret environment variables from everything it writes", async () => {
    const env = {
      GITHUB_TOKEN: "ghp_abcdefghijklmnop",
      ANTHROPIC_API_KEY: "sk-ant-0123456789",
      MY_DB_PASSWORD: "hunter2hunter2",
      SERVICE_SECRET: 'quote"and\\slash',
      PATH: "/usr/bin",
      KEYBOARD: "us",
    };
    const leak = Object.values(env).join(" ");
    const record = createRunRecord(runDir, { env });
    await record.emit(warning(leak));
    await record.saveState(
      makeState({ reason: leak, task: { kind: "text", title: leak, body: "" } }),
    );
    await record.savePrompt(1, `token: ${env.GITHUB_TOKEN}`);
    await record.saveTranscript(1, [{ content: leak }]);
    await record.flush();
    const written = await Promise.all(
      [
        "events.jsonl",
        "run.json",
        join("prompts", "iteration-001.md"),
        join("transcripts", "iteration-001.json"),
      ].map((file) => readFile(join(runDir, file), "utf8")),
    );
    for (const text of written) {
      for (const secret of [env.GITHUB_TOKEN, env.ANTHROPIC_API_KEY, env.MY_DB_PASSWORD]) {
        expect(text).not.toContain(secret);
      }
      expect(text).not.toContain("quote");
      expect(text).toContain("[redacted]");
    }
    expect(JSON.parse(written[0]!.trim()).message).toContain("/usr/bin us");
  });
});

describe("readRunState", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "closer-record-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("names the folder and the fix when run.json is missing", async () => {
    const error = await readRunState(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CloserError);
    expect((error as CloserError).code).toBe("not_found");
    expect((error as CloserError).fields.file).toBe(join(dir, "run.json"));
    expect((error as CloserError).fields.fix).toBeTruthy();
  });

  it("reports a run.json that is not JSON as a damaged record", async () => {
    await writeFile(join(dir, "run.json"), '{"version": 1, "runId": ');
    const error = await readRunState(dir).catch((caught: unknown) => caught);
    expect((error as CloserError).code).toBe("record_error");
  });

  it("names the field a run.json lacks", async () => {
    const { stepId: _dropped, ...partial } = makeState();
    await writeFile(join(dir, "run.json"), JSON.stringify(partial));
    const error = await readRunState(dir).catch((caught: unknown) => caught);
    expect((error as CloserError).code).toBe("record_error");
    expect((error as CloserError).fields.jsonPath).toBe("stepId");
  });

  it("reads a run.json of format 1 (before definition snapshots) and refuses an unknown format", async () => {
    await writeFile(join(dir, "run.json"), JSON.stringify({ ...makeState(), version: 1 }));
    expect((await readRunState(dir)).version).toBe(1);
    await writeFile(join(dir, "run.json"), JSON.stringify({ ...makeState(), version: 99 }));
    const error = await readRunState(dir).catch((caught: unknown) => caught);
    expect((error as CloserError).fields.jsonPath).toBe("version");
  });

  it("keeps the definition stamp, and refuses a malformed one", async () => {
    const definition = { hash: "a".repeat(64), files: 4 };
    await writeFile(join(dir, "run.json"), JSON.stringify(makeState({ definition })));
    expect((await readRunState(dir)).definition).toEqual(definition);
    await writeFile(
      join(dir, "run.json"),
      JSON.stringify({ ...makeState(), definition: { hash: 7 } }),
    );
    const error = await readRunState(dir).catch((caught: unknown) => caught);
    expect((error as CloserError).code).toBe("record_error");
    expect((error as CloserError).fields.jsonPath).toBe("definition");
  });
});

describe("createRunRecord failures", () => {
  it("reports a failed event write at the next saveState and at flush", async () => {
    const parent = await mkdtemp(join(tmpdir(), "closer-record-"));
    try {
      await writeFile(join(parent, "taken"), "a file where the run folder should go");
      const record = createRunRecord(join(parent, "taken", "run-1"), { env: {} });
      await record.emit(warning("lost")).catch(() => undefined);
      await expect(record.saveState(makeState())).rejects.toThrow();
      await expect(record.flush()).rejects.toThrow();
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});

describe("docs/record.md#diffs: an iteration's diff", () => {
  let runDir = "";
  beforeEach(async () => {
    runDir = await mkdtemp(join(tmpdir(), "closer-diff-record-"));
  });
  afterEach(async () => {
    await rm(runDir, { recursive: true, force: true });
  });

  it("is kept as written under the field cap, gzipped over it, redacted, and read back either way", async () => {
    const token = "ghp_0123456789abcdefghij0123456789abcdef";
    const record = createRunRecord(runDir, { env: {}, maxFieldBytes: 1024 });
    await record.saveDiff?.(1, `diff --git a/a b/a\n+${token}\n`);
    await record.saveDiff?.(2, `diff --git a/b b/b\n${"+line\n".repeat(1000)}`);

    expect((await readdir(join(runDir, "diffs"))).sort()).toEqual([
      "iteration-001.diff",
      "iteration-002.diff.gz",
    ]);
    const first = await readDiff(runDir, 1);
    expect(first?.text).toContain("+[redacted]");
    expect(first?.text).not.toContain(token);
    const second = await readDiff(runDir, 2);
    expect(second?.file).toBe("diffs/iteration-002.diff.gz");
    expect(second?.text.split("+line").length).toBe(1001);
    expect(await readDiff(runDir, 3)).toBeUndefined();
  });

  it("fails only its own write, never the record", async () => {
    const record = createRunRecord(runDir, { env: {} });
    await writeFile(join(runDir, "diffs"), "a file where the folder goes");
    await expect(record.saveDiff?.(1, "diff")).rejects.toBeInstanceOf(CloserError);
    await expect(record.saveState(makeState())).resolves.toBeUndefined();
  });
});
