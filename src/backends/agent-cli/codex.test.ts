import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeBackendContract } from "../../../test/backend-contract.js";
import { makeFakeCliContractHarness } from "../../../test/doubles/fake-cli/contract-harness.js";
import {
  type FakeCliSetup,
  fakeCliPath,
  isAlive,
  makeRequest,
  setUpFakeCli,
  waitFor,
} from "../../../test/doubles/fake-cli/fake-cli-harness.js";
import { runCommand } from "../../process/shell-command.js";
import { makeCodexBackend } from "./codex.js";

const schema = {
  type: "object",
  properties: { status: { type: "string" } },
  required: ["status"],
  additionalProperties: false,
};

describeBackendContract("codex", () =>
  makeFakeCliContractHarness("codex", (command) => makeCodexBackend({ command })),
);

describe("codex backend", () => {
  let setup: FakeCliSetup;
  let tempDir: string;
  const backend = () => makeCodexBackend({ command: [fakeCliPath("codex")], tempDir });

  beforeEach(async () => {
    setup = await setUpFakeCli();
    tempDir = path.dirname(setup.cwd);
  });
  afterEach(async () => {
    await setup.cleanup();
  });

  it("runs `codex exec --json` with the schema in a file, the model, and the prompt on stdin", async () => {
    await setup.script([{ structuredOutput: { status: "completed" } }]);
    await backend().query(makeRequest(setup, { prompt: "Fix it.", schema, model: "gpt-5-codex" }));
    const [call] = await setup.log();
    const argv = call?.argv ?? [];
    expect(argv.slice(0, 2)).toEqual(["exec", "--json"]);
    expect(argv[argv.indexOf("-m") + 1]).toBe("gpt-5-codex");
    // No login shell: it could reset PATH and drop the gh shim.
    expect(argv[argv.indexOf("-c") + 1]).toBe("allow_login_shell=false");
    expect(argv.at(-1)).toBe("-");
    expect(call?.schema).toEqual(schema);
    expect(call?.stdin).toBe("Fix it.");
    expect(argv).not.toContain("resume");
  });

  it("removes the schema file after the query", async () => {
    await setup.script([{ structuredOutput: { status: "completed" } }]);
    await backend().query(makeRequest(setup, { schema }));
    const left = (await readdir(tempDir)).filter((name) => name.startsWith("closer-codex-"));
    expect(left).toEqual([]);
  });

  it("parses the final agent message as the structured output", async () => {
    await setup.script([
      {
        structuredOutput: { status: "completed" },
        sessionId: "thread-1",
        tools: ["npm test"],
        files: { "notes.md": "hello\n" },
        usage: { inputTokens: 100, outputTokens: 7, cacheReadTokens: 40 },
      },
    ]);
    const response = await backend().query(makeRequest(setup, { schema }));
    expect(response.error).toBeUndefined();
    expect(response.structuredOutput).toEqual({ status: "completed" });
    expect(JSON.parse(response.text)).toEqual({ status: "completed" });
    expect(response.sessionId).toBe("thread-1");
    expect(response.toolsUsed).toEqual(["command_execution", "file_change"]);
    expect(response.usage).toEqual({
      inputTokens: 100,
      outputTokens: 7,
      cacheReadTokens: 40,
      cacheCreationTokens: 0,
    });
    expect(response.costUsd).toBe(0);
    expect(await readFile(path.join(setup.cwd, "notes.md"), "utf8")).toBe("hello\n");
  });

  it("hands each tool call to onToolCall as codex prints it (docs/observe.md#tool-calls)", async () => {
    await setup.script([
      {
        structuredOutput: { status: "completed" },
        tools: ["npm test"],
        files: { "notes.md": "hello\n" },
      },
    ]);
    const heard: string[] = [];
    const response = await backend().query({
      ...makeRequest(setup, { schema }),
      onToolCall: (activity) =>
        heard.push(
          `${activity.phase} ${activity.call.action} ${path.basename(activity.call.target)}`,
        ),
    });
    expect(response.error).toBeUndefined();
    expect(heard).toEqual([
      "start command npm test",
      "end command npm test",
      "start write notes.md",
      "end write notes.md",
    ]);
  });

  it("hands codex the strict form of the schema and reads a null optional as absent", async () => {
    const withOptional = {
      type: "object",
      properties: { status: { type: "string" }, note: { type: "string" } },
      required: ["status"],
    };
    await setup.script([{ structuredOutput: { status: "completed", note: null } }]);
    const response = await backend().query(makeRequest(setup, { schema: withOptional }));
    const [call] = await setup.log();
    expect(call?.schema).toEqual({
      type: "object",
      properties: { status: { type: "string" }, note: { type: ["string", "null"] } },
      required: ["status", "note"],
      additionalProperties: false,
    });
    expect(response.structuredOutput).toEqual({ status: "completed" });
  });

  it("answers text without structured output when the message is not JSON", async () => {
    await setup.script([{ text: "I could not finish." }]);
    const response = await backend().query(makeRequest(setup, { schema }));
    expect(response.error).toBeUndefined();
    expect(response.text).toBe("I could not finish.");
    expect(response.structuredOutput).toBeUndefined();
  });

  it("resumes the thread with `resume <id>` and puts the system text only before a new session's prompt", async () => {
    await setup.script([{ sessionId: "thread-9" }, {}]);
    const codex = backend();
    const first = await codex.query(
      makeRequest(setup, { prompt: "one", systemPrompt: "Be brief." }),
    );
    const second = await codex.query(
      makeRequest(setup, { prompt: "two", systemPrompt: "Be brief.", sessionId: first.sessionId }),
    );
    const calls = await setup.log();
    const resumeArgs = calls[1]?.argv ?? [];
    expect(
      resumeArgs.slice(resumeArgs.indexOf("resume"), resumeArgs.indexOf("resume") + 3),
    ).toEqual(["resume", "thread-9", "-"]);
    expect(calls[0]?.stdin).toContain("Be brief.");
    expect(calls[0]?.stdin).toContain("one");
    expect(calls[1]?.stdin).toBe("two");
    expect(second.sessionId).toBe("thread-9");
  });

  it.each([
    ["rate_limit", "rate_limit", true],
    // The fake answers "503 Service Unavailable": a server failure, waited out like an overload.
    ["overloaded", "server_error", true],
    ["auth", "auth", false],
    ["session_expired", "session_expired", true],
    ["crash", "crash", false],
  ] as const)("classifies a %s failure as %s", async (fail, kind, retryable) => {
    await setup.script([{ fail }]);
    const response = await backend().query(makeRequest(setup, { sessionId: "old-thread" }));
    expect(response.error?.kind).toBe(kind);
    expect(response.error?.retryable).toBe(retryable);
  });

  it("kills the whole process group on timeout and still removes the schema file", async () => {
    await setup.script([{ fail: "hang" }]);
    const response = await backend().query(makeRequest(setup, { schema, timeoutMs: 1500 }));
    expect(response.error?.kind).toBe("timeout");
    const [call] = await setup.log();
    await waitFor(async () => !isAlive(call?.pid ?? 0) && !isAlive(call?.childPid ?? 0), 3000);
    const left = (await readdir(tempDir)).filter((name) => name.startsWith("closer-codex-"));
    expect(left).toEqual([]);
  });
});

describe("codex sandbox", () => {
  let setup: FakeCliSetup;
  beforeEach(async () => {
    setup = await setUpFakeCli();
  });
  afterEach(async () => {
    await setup.cleanup();
  });

  it("adds the git dirs as writable roots in workspace-write, so the agent can commit", async () => {
    await runCommand({ command: "git init -q", cwd: setup.cwd, timeoutMs: 10_000 });
    await setup.script([{ text: "done" }]);
    const backend = makeCodexBackend({ command: [fakeCliPath("codex")] });
    await backend.query(makeRequest(setup, { permissionMode: "acceptEdits" }));
    const [call] = await setup.log();
    const argv = call?.argv ?? [];
    expect(argv[argv.indexOf("--sandbox") + 1]).toBe("workspace-write");
    expect(argv[argv.indexOf("--add-dir") + 1]).toBe(path.join(setup.cwd, ".git"));
  });

  it("adds no writable roots outside git, in plan mode or without a sandbox", async () => {
    await setup.script([{ text: "done" }, { text: "done" }, { text: "done" }]);
    const backend = makeCodexBackend({ command: [fakeCliPath("codex")] });
    await backend.query(makeRequest(setup, { permissionMode: "acceptEdits" }));
    await runCommand({ command: "git init -q", cwd: setup.cwd, timeoutMs: 10_000 });
    await backend.query(makeRequest(setup, { permissionMode: "plan" }));
    await backend.query(makeRequest(setup, { permissionMode: "bypassPermissions" }));
    for (const call of await setup.log()) expect(call.argv).not.toContain("--add-dir");
  });

  it("runs the CLI with PWD set to the working tree", async () => {
    await setup.script([{ text: "done" }]);
    const backend = makeCodexBackend({ command: [fakeCliPath("codex")] });
    await backend.query(makeRequest(setup, { env: { FAKE_CLI_LOG_ENV: "PWD" } }));
    const [call] = await setup.log();
    expect(call?.env.PWD).toBe(setup.cwd);
  });
});
