import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONTRACT_SCHEMA } from "../../../test/backend-contract.js";
import {
  openaiBackendConfig,
  openaiRequest,
} from "../../../test/doubles/openai-server/contract-harness.js";
import {
  type ChatRequest,
  type OpenaiServer,
  startOpenaiServer,
} from "../../../test/doubles/openai-server/openai-server.js";
import type { Backend } from "../../ports/backend.js";
import type { BackendConfig } from "../../ports/runner-config.js";
import { makeBackend } from "../make-backend.js";

let server: OpenaiServer;
let cwd: string;

beforeEach(async () => {
  server = await startOpenaiServer({ usage: { promptTokens: 1000, completionTokens: 100 } });
  cwd = await mkdtemp(path.join(os.tmpdir(), "closer-openai-"));
  await writeFile(path.join(cwd, "add.js"), "export const add = (a, b) => a - b;\n");
});
afterEach(() => server.close());

function backendWith(extra: Partial<BackendConfig> = {}, env = process.env): Backend {
  return makeBackend(openaiBackendConfig(server.baseURL, extra), { agentDir: cwd, env });
}

/** What the tool call `callId` answered, as the model got it in a later request. */
function toolResult(request: ChatRequest | undefined, callId: string): string {
  const message = request?.messages.find((entry) => entry.tool_call_id === callId);
  return String(message?.content ?? "");
}

/** The names of the tools a request offered, sorted. */
function offeredTools(request: ChatRequest | undefined): string[] {
  const tools = (request?.body.tools ?? []) as { function: { name: string } }[];
  return tools.map((entry) => entry.function.name).sort();
}

/** A gh command past the veto (the shim refuses it), then what GITHUB_TOKEN holds. */
const GH_AND_TOKEN = 'gh pr view 3; echo "token=[$GITHUB_TOKEN]"';

const DONE = { status: "completed", summary: "fixed" };

describe("the openai-compatible backend's tool loop", () => {
  it("reads, edits and runs by real tool calls in the working tree, each result sent back", async () => {
    server.script([
      { toolCalls: [{ name: "read", arguments: { path: "add.js" } }] },
      {
        toolCalls: [
          { name: "edit", arguments: { path: "add.js", old_string: "a - b", new_string: "a + b" } },
        ],
      },
      { toolCalls: [{ name: "bash", arguments: { command: "cat add.js; exit 4" } }] },
      { text: JSON.stringify(DONE) },
    ]);
    const heard: string[] = [];
    const response = await backendWith().query({
      ...openaiRequest(cwd, { schema: CONTRACT_SCHEMA }),
      onToolCall: (activity) =>
        heard.push(
          activity.phase === "start"
            ? `start ${activity.call.id} ${activity.call.action} ${activity.call.target}`
            : `end ${activity.call.id} exit=${activity.exitCode} failed=${activity.failed}`,
        ),
    });

    expect(response.error).toBeUndefined();
    expect(response.structuredOutput).toEqual(DONE);
    expect(response.toolsUsed).toEqual(["read", "edit", "bash"]);
    // As each call runs (docs/observe.md#tool-calls).
    expect(heard).toEqual([
      "start call_1 read add.js",
      "end call_1 exit=undefined failed=false",
      "start call_2 edit add.js",
      "end call_2 exit=undefined failed=false",
      "start call_3 command cat add.js; exit 4",
      "end call_3 exit=4 failed=true",
    ]);
    expect(await readFile(path.join(cwd, "add.js"), "utf8")).toContain("a + b");
    expect(toolResult(server.requests[1], "call_1")).toBe(
      "1\texport const add = (a, b) => a - b;\n2\t",
    );
    expect(toolResult(server.requests[2], "call_2")).toBe("edited add.js");
    expect(toolResult(server.requests[3], "call_3")).toMatch(/^exit code 4\nstdout:\n.*a \+ b/);
    expect(offeredTools(server.requests[0])).toEqual([
      "bash",
      "edit",
      "grep",
      "list",
      "read",
      "write",
    ]);
  });

  it("offers only the read-only tools under plan, and none that disallowedTools names", async () => {
    server.script([{ text: "ok" }, { text: "ok" }]);
    const backend = backendWith();
    await backend.query(openaiRequest(cwd, { permissionMode: "plan" }));
    await backend.query(openaiRequest(cwd, { disallowedTools: ["Bash", "Write"] }));
    expect(offeredTools(server.requests[0])).toEqual(["grep", "list", "read"]);
    expect(offeredTools(server.requests[1])).toEqual(["edit", "grep", "list", "read"]);
  });

  it("refuses a command past the GitHub boundary, gives the shim's gh to the others, and keeps GitHub tokens out", async () => {
    server.script([
      { toolCalls: [{ name: "bash", arguments: { command: "gh issue close 7" } }] },
      {
        toolCalls: [{ name: "bash", arguments: { command: GH_AND_TOKEN } }],
      },
      { text: "done" },
    ]);
    const backend = backendWith({}, { ...process.env, GITHUB_TOKEN: "ghp_secret" });
    const response = await backend.query(openaiRequest(cwd));

    expect(toolResult(server.requests[1], "call_1")).toMatch(/^error: refused: closer performs/);
    const second = toolResult(server.requests[2], "call_2");
    expect(second).toContain("gh: refused by closer");
    expect(second).toContain("token=[]");
    expect(response.boundaryAttempts).toEqual(["gh issue close 7", "gh pr view 3"]);
  });

  it("stops at maxSteps with a max_turns error, having asked no more", async () => {
    const busy = { toolCalls: [{ name: "list", arguments: {} }] };
    server.script([busy, busy, busy]);
    const response = await backendWith({ maxSteps: 2 }).query(openaiRequest(cwd));
    expect(response.error).toMatchObject({ kind: "max_turns", retryable: false });
    expect(response.error?.message).toContain("maxSteps");
    expect(server.requests).toHaveLength(2);
  });
});

describe("the openai-compatible backend's structured answer", () => {
  it("json-schema: sends the step's schema as a strict response_format and reads the final text", async () => {
    server.script([{ text: JSON.stringify(DONE) }]);
    const response = await backendWith().query(openaiRequest(cwd, { schema: CONTRACT_SCHEMA }));
    expect(response.structuredOutput).toEqual(DONE);
    expect(server.requests[0]?.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "answer", strict: true, schema: CONTRACT_SCHEMA },
    });
  });

  it("tool: offers an answer tool with the step's schema, whose call ends the query", async () => {
    server.script([{ toolCalls: [{ name: "answer", arguments: DONE }] }, { text: "never asked" }]);
    const backend = backendWith({ structuredOutput: "tool" });
    const response = await backend.query(openaiRequest(cwd, { schema: CONTRACT_SCHEMA }));
    expect(response.structuredOutput).toEqual(DONE);
    expect(response.toolsUsed).toEqual([]);
    expect(server.requests).toHaveLength(1);
    const body = server.requests[0]?.body;
    expect(body?.response_format).toBeUndefined();
    const tools = body?.tools as { function: { name: string; parameters: unknown } }[];
    expect(tools.find((entry) => entry.function.name === "answer")?.function.parameters).toEqual(
      CONTRACT_SCHEMA,
    );
  });

  it("an answer that breaks the schema is no structured output: the text stays for the format check", async () => {
    const wrong = { status: "finished", summary: 3 };
    server.script([
      { text: JSON.stringify(wrong) },
      { toolCalls: [{ name: "answer", arguments: wrong }] },
    ]);
    const jsonMode = await backendWith().query(openaiRequest(cwd, { schema: CONTRACT_SCHEMA }));
    const toolMode = await backendWith({ structuredOutput: "tool" }).query(
      openaiRequest(cwd, { schema: CONTRACT_SCHEMA }),
    );
    for (const response of [jsonMode, toolMode]) {
      expect(response.error).toBeUndefined();
      expect(response.structuredOutput).toBeUndefined();
      expect(JSON.parse(response.text)).toEqual(wrong);
      expect(response.transcript.at(-1)).toMatchObject({
        type: "closer",
        subtype: "structured_output_invalid",
        errors: expect.arrayContaining([expect.stringContaining("/status")]),
      });
    }
  });
});

describe("the openai-compatible backend's sessions and usage", () => {
  it("under continue, sends the previous query's messages again; a new session starts empty", async () => {
    server.script([
      { toolCalls: [{ name: "answer", arguments: DONE }] },
      { text: "second" },
      { text: "third" },
    ]);
    const backend = backendWith({ structuredOutput: "tool" });
    const first = await backend.query(
      openaiRequest(cwd, { prompt: "one", schema: CONTRACT_SCHEMA }),
    );
    const second = await backend.query(
      openaiRequest(cwd, { prompt: "two", sessionId: first.sessionId }),
    );
    await backend.query(openaiRequest(cwd, { prompt: "three" }));

    expect(second.sessionId).toBe(first.sessionId);
    const roles = server.requests[1]?.messages.map((message) => message.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(server.requests[1]?.messages[1]?.content).toBe("one");
    expect(server.requests[1]?.messages[4]?.content).toBe("two");
    expect(server.requests[2]?.messages.map((message) => message.role)).toEqual(["system", "user"]);
  });

  it("calls a session it does not hold expired, so the loop goes on in a new one; sends nothing", async () => {
    const response = await backendWith().query(
      openaiRequest(cwd, { sessionId: "from-another-process" }),
    );
    expect(response.error).toMatchObject({ kind: "session_expired", retryable: true });
    expect(response.error?.message).toContain("from-another-process");
    expect(server.requests).toHaveLength(0);
  });

  it("reports the tokens of every model call, priced by runner.backend.pricing, cost running as it goes", async () => {
    server.script([{ toolCalls: [{ name: "list", arguments: {} }] }, { text: "done" }]);
    const running: number[] = [];
    const response = await backendWith({ pricing: { inputPerMTok: 2, outputPerMTok: 10 } }).query(
      openaiRequest(cwd, { onCost: (cost) => running.push(cost) }),
    );
    expect(response.usage).toEqual({
      inputTokens: 2000,
      outputTokens: 200,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
    });
    expect(response.costUsd).toBeCloseTo(0.006, 9);
    expect(running).toHaveLength(2);
    expect(running[0]).toBeCloseTo(0.003, 9);
    expect(running[1]).toBeCloseTo(0.006, 9);
  });
});

describe("the openai-compatible backend and a model that calls tools wrongly", () => {
  it("answers an unknown tool and malformed arguments with an error result, and goes on", async () => {
    server.script([
      { toolCalls: [{ name: "shell", arguments: { cmd: "ls" } }] },
      { toolCalls: [{ name: "read", arguments: '{"path": "add.js"' }] },
      { toolCalls: [{ name: "read", arguments: { file: "add.js" } }] },
      { text: "gave up" },
    ]);
    const response = await backendWith().query(openaiRequest(cwd));
    expect(response.error).toBeUndefined();
    expect(response.text).toBe("gave up");
    expect(response.toolsUsed).toEqual([]);
    expect(toolResult(server.requests[1], "call_1")).toContain(
      "unavailable tool 'shell'. Available tools: read, write, edit, list, grep, bash",
    );
    expect(toolResult(server.requests[2], "call_2")).toContain("JSON parsing failed");
    expect(toolResult(server.requests[3], "call_3")).toMatch(
      /Invalid input for tool read[\s\S]*path/,
    );
  });
});
