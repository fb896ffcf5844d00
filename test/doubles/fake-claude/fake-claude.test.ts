/** The fake Claude Code itself: what tests of other backends rely on. */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeClaude, makeFakeClaude } from "./make-fake-claude.js";

describe("fake Claude Code", () => {
  let fake: FakeClaude;
  let cwd: string;
  beforeEach(async () => {
    fake = await makeFakeClaude();
    cwd = await mkdtemp(join(tmpdir(), "closer-fake-claude-cwd-"));
  });
  afterEach(async () => {
    await fake.cleanup();
    await rm(cwd, { recursive: true, force: true });
  });

  const runPrint = (args: string[]) =>
    spawnSync(fake.executablePath, args, {
      cwd,
      env: { ...process.env, ...fake.env },
      encoding: "utf8",
    });

  it("answers `claude -p --output-format json` with the result and keeps turns across processes", async () => {
    await fake.script([{ text: "first" }, { outcome: "rate_limit" }]);
    const first = runPrint(["-p", "hello", "--output-format", "json", "--model", "m-1"]);
    const second = runPrint(["-p", "again", "--output-format", "json"]);
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      type: "result",
      subtype: "success",
      result: "first",
    });
    expect(second.status).toBe(1);
    expect(JSON.parse(second.stdout)).toMatchObject({ is_error: true, api_error_status: 429 });
    const [seen] = await fake.invocations();
    expect(seen?.prompts).toEqual(["hello"]);
    expect(seen?.options.model).toBe("m-1");
  });

  it("reports a 529 as Claude Code does: retries, a server_error assistant message, an error result", async () => {
    await fake.script([{ outcome: "overloaded" }, { outcome: "connection_reset", apiRetries: 1 }]);
    const read = (args: string[]) =>
      runPrint([...args, "--output-format", "stream-json", "--verbose"])
        .stdout.trim()
        .split("\n")
        .map((line) => JSON.parse(line));

    const overloaded = read(["-p", "x"]);
    expect(
      overloaded.filter((message) => message.subtype === "api_retry").map((m) => m.error_status),
    ).toEqual([529, 529]);
    expect(overloaded.find((message) => message.type === "assistant")).toMatchObject({
      error: "server_error",
      message: { content: [{ type: "text", text: expect.stringContaining("API Error: 529") }] },
    });
    expect(overloaded.find((message) => message.type === "result")).toMatchObject({
      subtype: "success",
      is_error: true,
      api_error_status: 529,
      result: expect.stringContaining("overloaded_error"),
    });

    const unreachable = read(["-p", "y"]);
    expect(unreachable.find((message) => message.subtype === "api_retry")).toMatchObject({
      error_status: null,
    });
    expect(unreachable.find((message) => message.type === "result")).toMatchObject({
      is_error: true,
      api_error_status: null,
      result: "API Error: Unable to connect to API (ECONNRESET)",
    });
  });

  it("streams every message in print mode with stream-json, and resumes known sessions only", async () => {
    await fake.script([{ sessionId: "11111111-1111-4111-8111-111111111111" }, {}]);
    const first = runPrint(["-p", "x", "--output-format", "stream-json", "--verbose"]);
    const types = first.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).type);
    expect(types[0]).toBe("system");
    expect(types.at(-1)).toBe("system");
    expect(types).toContain("result");
    const resumed = runPrint(["-p", "y", "--resume", "11111111-1111-4111-8111-111111111111"]);
    expect(resumed.status).toBe(0);
    const unknown = runPrint(["-p", "z", "--resume", "22222222-2222-4222-8222-222222222222"]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("No conversation found with session ID");
  });

  it("asks the SDK's canUseTool in default mode and records the answer", async () => {
    await fake.script([
      {
        actions: [
          { tool: "Bash", input: { command: "touch denied.txt" } },
          { tool: "Write", input: { file_path: "allowed.txt", content: "ok" } },
        ],
      },
    ]);
    const asked: string[] = [];
    const stream = query({
      prompt: "go",
      options: {
        pathToClaudeCodeExecutable: fake.executablePath,
        cwd,
        env: { ...process.env, ...fake.env },
        permissionMode: "default",
        settingSources: [],
        canUseTool: async (toolName) => {
          asked.push(toolName);
          return toolName === "Bash"
            ? { behavior: "deny", message: "not this one" }
            : { behavior: "allow", updatedInput: { file_path: "allowed.txt", content: "ok" } };
        },
      },
    });
    for await (const _message of stream) {
      // read to the end
    }
    expect(asked).toEqual(["Bash", "Write"]);
    const [seen] = await fake.invocations();
    expect(seen?.permissions).toMatchObject([
      { tool: "Bash", behavior: "deny", message: "not this one", via: "can_use_tool" },
      { tool: "Write", behavior: "allow", via: "can_use_tool" },
    ]);
    expect(seen?.options.permissionPromptTool).toBe("stdio");
  });
});
