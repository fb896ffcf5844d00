import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeBackendContract } from "../../../test/backend-contract.js";
import { makeReplayContractHarness } from "../../../test/doubles/fake-cli/contract-harness.js";
import { makeRequest } from "../../../test/doubles/fake-cli/fake-cli-harness.js";
import { isCloserError } from "../../errors.js";
import type { BackendError, ToolActivity } from "../../ports/backend.js";
import { EVENT_FORMAT_VERSION, type RunEvent } from "../../ports/events.js";
import { createRunRecord } from "../../record/run-record.js";
import { loadReplayTurns, makeReplayBackend } from "./replay.js";
import type { ReplaySession } from "./session.js";

describeBackendContract(
  "replay",
  () => makeReplayContractHarness((source) => makeReplayBackend({ source })),
  { processes: false },
);

describe("replay backend", () => {
  let root: string;
  let cwd: string;
  const request = (overrides = {}) => makeRequest({ cwd, env: {} }, overrides);
  const read = (file: string) => readFile(path.join(cwd, file), "utf8");
  const exists = (file: string) =>
    read(file).then(
      () => true,
      () => false,
    );

  async function sessionFile(session: ReplaySession | unknown): Promise<string> {
    const file = path.join(root, "session.json");
    await writeFile(file, JSON.stringify(session));
    return file;
  }

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "closer-replay-"));
    cwd = path.join(root, "work");
    await mkdir(cwd);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("runs a turn's recorded commands in the working tree after its file changes", async () => {
    const source = await sessionFile({
      version: 1,
      turns: [
        {
          files: { "notes.txt": "first\n" },
          commands: ["cp notes.txt copy.txt", "echo second >> copy.txt"],
        },
        { commands: ["exit 3"] },
      ],
    });
    const backend = makeReplayBackend({ source });
    const heard: string[] = [];
    const onToolCall = (activity: ToolActivity) => {
      const { action, target } = activity.call;
      const end =
        activity.phase === "end" ? ` exit=${activity.exitCode} failed=${activity.failed}` : "";
      heard.push(`${activity.phase} ${action} ${target}${end}`);
    };
    const first = await backend.query({ ...request(), onToolCall });
    expect(first.error).toBeUndefined();
    expect(await read("copy.txt")).toBe("first\nsecond\n");
    const second = await backend.query({ ...request(), onToolCall });
    expect(second.error?.kind).toBe("config");
    expect(second.error?.message).toContain("`exit 3` failed");
    // What it did again, told as tool calls (docs/observe.md#tool-calls).
    expect(heard).toEqual([
      "start write notes.txt",
      "end write notes.txt exit=undefined failed=false",
      "start command cp notes.txt copy.txt",
      "end command cp notes.txt copy.txt exit=0 failed=false",
      "start command echo second >> copy.txt",
      "end command echo second >> copy.txt exit=0 failed=false",
      "start command exit 3",
      "end command exit 3 exit=undefined failed=true",
    ]);
  });

  it("answers each query with the next turn and re-applies its file changes", async () => {
    await writeFile(path.join(cwd, "README.md"), "Status: TODO\n");
    await writeFile(path.join(cwd, "old.txt"), "remove me\n");
    const source = await sessionFile({
      version: 1,
      turns: [
        {
          text: "Working on it.",
          files: { "src/greet.ts": "export const greet = () => 'hi';\n", "old.txt": null },
          sessionId: "demo",
          costUsd: 0.01,
          toolsUsed: ["Write"],
        },
        {
          structuredOutput: { status: "completed" },
          edits: [{ path: "README.md", oldText: "TODO", newText: "done" }],
          costUsd: 0.02,
        },
      ],
    });
    const backend = makeReplayBackend({ source });
    const first = await backend.query(request());
    expect(first.error).toBeUndefined();
    expect(first.text).toBe("Working on it.");
    expect(first.sessionId).toBe("demo");
    expect(first.costUsd).toBe(0.01);
    expect(first.toolsUsed).toEqual(["Write"]);
    expect(await read("src/greet.ts")).toBe("export const greet = () => 'hi';\n");
    expect(await exists("old.txt")).toBe(false);

    const second = await backend.query(request({ sessionId: "demo", schema: { type: "object" } }));
    expect(second.structuredOutput).toEqual({ status: "completed" });
    expect(JSON.parse(second.text)).toEqual({ status: "completed" });
    expect(second.sessionId).toBe("demo");
    expect(await read("README.md")).toBe("Status: done\n");
  });

  it("answers with a config error once the turns run out", async () => {
    const backend = makeReplayBackend({ source: await sessionFile({ turns: [{ text: "only" }] }) });
    await backend.query(request());
    const response = await backend.query(request());
    expect(response.error?.kind).toBe("config");
    expect(response.error?.retryable).toBe(false);
    expect(response.error?.message).toMatch(/has 1 answer/);
  });

  it("answers a recorded failure as that failure, without touching files", async () => {
    const error: BackendError = { kind: "auth", message: "invalid key", retryable: false };
    const backend = makeReplayBackend({
      source: await sessionFile({ turns: [{ error, files: { "x.txt": "x" } }] }),
    });
    const response = await backend.query(request());
    expect(response.error).toEqual(error);
    expect(await exists("x.txt")).toBe(false);
  });

  it("names the file and the JSON path of an invalid session", async () => {
    const source = await sessionFile({ turns: [{ text: 1 }] });
    const failure = await loadReplayTurns(source).catch((error: unknown) => error);
    expect(isCloserError(failure) && failure.fields.file).toBe(source);
    expect(isCloserError(failure) && failure.fields.jsonPath).toBe("turns[0].text");
    const response = await makeReplayBackend({ source }).query(request());
    expect(response.error?.kind).toBe("config");
  });

  it("refuses file changes outside the working tree", async () => {
    const source = await sessionFile({ turns: [{ files: { "../escape.txt": "x" } }] });
    const response = await makeReplayBackend({ source }).query(request());
    expect(response.error?.kind).toBe("config");
    expect(await readFile(path.join(root, "escape.txt"), "utf8").catch(() => "absent")).toBe(
      "absent",
    );
  });

  it("reports a missing source as a config error", async () => {
    const response = await makeReplayBackend({ source: path.join(root, "nope.json") }).query(
      request(),
    );
    expect(response.error?.kind).toBe("config");
  });

  it("answers a cancelled query with aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const backend = makeReplayBackend({ source: await sessionFile({ turns: [{ text: "x" }] }) });
    expect((await backend.query(request({ signal: controller.signal }))).error?.kind).toBe(
      "aborted",
    );
  });
});

describe("replay from a recorded run folder", () => {
  let root: string;
  let recordedCwd: string;
  let cwd: string;
  let runDir: string;
  const runId = "run-1";
  const event = (body: Record<string, unknown>) =>
    ({ v: EVENT_FORMAT_VERSION, at: 1, runId, ...body }) as RunEvent;
  const backendEnd = (iteration: number, extra: Record<string, unknown> = {}) =>
    event({
      type: "backend-end",
      iteration,
      durationMs: 5,
      costUsd: 0.5,
      totalCostUsd: 0.5,
      hasStructuredOutput: false,
      sessionId: "recorded-session",
      ...extra,
    });

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "closer-replay-run-"));
    recordedCwd = path.join(root, "recorded");
    cwd = path.join(root, "work");
    runDir = path.join(root, "runs", runId);
    await mkdir(cwd, { recursive: true });
    await writeFile(path.join(cwd, "app.txt"), "version 1\n");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("replays the answers and the Write/Edit tool uses of a recorded Claude run", async () => {
    const record = createRunRecord(runDir, { env: {} });
    await record.emit(
      event({
        type: "run-start",
        agent: "a",
        task: "t",
        cwd: recordedCwd,
        maxIterations: 3,
        resumed: false,
      }),
    );
    await record.emit(
      backendEnd(1, { error: { kind: "rate_limit", message: "429", retryable: true }, costUsd: 0 }),
    );
    await record.emit(backendEnd(1, { costUsd: 0.25 }));
    await record.saveTranscript(1, claudeTranscript(recordedCwd));
    await record.emit(backendEnd(2, { hasStructuredOutput: true, costUsd: 0.1 }));
    await record.saveTranscript(2, [
      {
        type: "item.completed",
        item: { id: "i0", type: "agent_message", text: '{"status":"completed"}' },
      },
    ]);
    await record.flush();

    const backend = makeReplayBackend({ source: runDir });
    const first = await backend.query(makeRequest({ cwd, env: {} }));
    expect(first.error).toBeUndefined();
    expect(first.text).toBe("Edited the app.");
    expect(first.costUsd).toBe(0.25);
    expect(first.sessionId).toBe("recorded-session");
    expect(first.toolsUsed).toEqual(["Write", "Edit", "Write", "Edit"]);
    expect(await readFile(path.join(cwd, "app.txt"), "utf8")).toBe("version 2\n");
    expect(await readFile(path.join(cwd, "src/new.ts"), "utf8")).toBe("export const b = 2;\n");
    expect(await readFile(path.join(cwd, "scratch.txt"), "utf8").catch(() => "absent")).toBe(
      "absent",
    );

    const second = await backend.query(makeRequest({ cwd, env: {} }));
    expect(second.structuredOutput).toEqual({ status: "completed" });
    expect((await backend.query(makeRequest({ cwd, env: {} }))).error?.kind).toBe("config");
  });

  it("replays a run that was itself made by replay", async () => {
    const source = path.join(root, "session.json");
    await writeFile(
      source,
      JSON.stringify({ turns: [{ text: "done", files: { "made.txt": "made\n" }, costUsd: 0.3 }] }),
    );
    const original = await makeReplayBackend({ source }).query(makeRequest({ cwd, env: {} }));
    const record = createRunRecord(runDir, { env: {} });
    await record.emit(backendEnd(1, { costUsd: original.costUsd }));
    await record.saveTranscript(1, original.transcript);
    await record.flush();

    const fresh = path.join(root, "fresh");
    await mkdir(fresh);
    const again = await makeReplayBackend({ source: path.join(runDir, "events.jsonl") }).query(
      makeRequest({ cwd: fresh, env: {} }),
    );
    expect(again.text).toBe("done");
    expect(again.costUsd).toBe(0.3);
    expect(await readFile(path.join(fresh, "made.txt"), "utf8")).toBe("made\n");
  });

  it("says so when the folder is not a run record", async () => {
    await mkdir(runDir, { recursive: true });
    const failure = await loadReplayTurns(runDir).catch((error: unknown) => error);
    expect(isCloserError(failure) && failure.code).toBe("config_error");
  });
});

function claudeTranscript(recordedCwd: string): unknown[] {
  const toolUse = (id: string, name: string, input: Record<string, unknown>) => ({
    type: "assistant",
    message: { role: "assistant", content: [{ type: "tool_use", id, name, input }] },
  });
  return [
    { type: "system", subtype: "init", cwd: recordedCwd },
    toolUse("t1", "Write", {
      file_path: path.join(recordedCwd, "src/new.ts"),
      content: "export const b = 1;\n",
    }),
    toolUse("t2", "Edit", {
      file_path: path.join(recordedCwd, "src/new.ts"),
      old_string: "1",
      new_string: "2",
    }),
    toolUse("t3", "Write", { file_path: "/tmp/elsewhere/scratch.txt", content: "scratch" }),
    toolUse("t4", "Edit", {
      file_path: path.join(recordedCwd, "app.txt"),
      old_string: "1",
      new_string: "2",
    }),
    {
      type: "assistant",
      message: { role: "assistant", content: [{ type: "text", text: "Edited the app." }] },
    },
    {
      type: "result",
      subtype: "success",
      is_error: false,
      result: "Edited the app.",
      session_id: "recorded-session",
    },
  ];
}
