/** The scripted Anthropic API itself: what the runs through the real Claude Code rely on. */
import { request as httpRequest } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AnthropicApi, bashCall, startAnthropicApi, toolResultsOf } from "./anthropic-api.js";

const MAIN_TOOLS = [
  { name: "Bash", input_schema: { type: "object" } },
  { name: "StructuredOutput", input_schema: { type: "object" } },
];

interface StreamEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

function parseEvents(text: string): StreamEvent[] {
  return text
    .split("\n\n")
    .filter((chunk) => chunk.trim() !== "")
    .map((chunk) => {
      const lines = chunk.split("\n");
      const event = lines.find((line) => line.startsWith("event: "))?.slice(7) ?? "";
      const data = lines.find((line) => line.startsWith("data: "))?.slice(6) ?? "{}";
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

/** The content blocks a stream builds, as a client assembles them from the deltas. */
function contentOf(events: readonly StreamEvent[]): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  const json: string[] = [];
  for (const { data } of events) {
    const index = Number(data.index);
    if (data.type === "content_block_start") {
      blocks[index] = { ...(data.content_block as Record<string, unknown>) };
      json[index] = "";
    }
    if (data.type !== "content_block_delta") continue;
    const delta = data.delta as { type: string; text?: string; partial_json?: string };
    const block = blocks[index] as Record<string, unknown>;
    if (delta.type === "text_delta") block.text = `${block.text}${delta.text}`;
    if (delta.type === "input_json_delta") json[index] += delta.partial_json ?? "";
  }
  return blocks.map((block, index) =>
    block.type === "tool_use" ? { ...block, input: JSON.parse(json[index] ?? "{}") } : block,
  );
}

describe("scripted Anthropic API", () => {
  let api: AnthropicApi;
  beforeEach(async () => {
    api = await startAnthropicApi({ usage: { inputTokens: 7, outputTokens: 3 } });
  });
  afterEach(() => api.close());

  const post = (path: string, body: Record<string, unknown>) =>
    fetch(`${api.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("streams a tool call, then the structured output as a StructuredOutput call, with usage", async () => {
    api.script([{ toolCalls: [bashCall("ls")], text: "done", structuredOutput: { status: "ok" } }]);
    const request = { model: "claude-x", stream: true, tools: MAIN_TOOLS, messages: [] };

    const first = parseEvents(await (await post("/v1/messages?beta=true", request)).text());
    const second = parseEvents(await (await post("/v1/messages", request)).text());

    expect(first.map((event) => event.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(first.every((event) => event.event === event.data.type)).toBe(true);
    expect(contentOf(first)).toEqual([
      {
        type: "tool_use",
        id: "toolu_scripted_1",
        name: "Bash",
        input: { command: "ls", description: "Run a command" },
      },
    ]);
    expect(first[0]?.data.message).toMatchObject({ model: "claude-x", usage: { input_tokens: 7 } });
    expect(first.at(-2)?.data).toMatchObject({
      delta: { stop_reason: "tool_use" },
      usage: { output_tokens: 3 },
    });
    expect(contentOf(second)).toEqual([
      { type: "text", text: "done" },
      {
        type: "tool_use",
        id: "toolu_scripted_2",
        name: "StructuredOutput",
        input: { status: "ok" },
      },
    ]);
    expect(api.requests.map((logged) => logged.served)).toEqual(["tool:Bash", "structured-output"]);
  });

  it("answers in one JSON message when not asked to stream; without StructuredOutput the declaration is text", async () => {
    api.script([{ structuredOutput: { status: "ok" } }]);
    const response = await post("/v1/messages", {
      model: "claude-x",
      tools: [MAIN_TOOLS[0]],
      messages: [
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "out" }] },
      ],
    });

    expect(await response.json()).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: '{"status":"ok"}' }],
      stop_reason: "end_turn",
      usage: { input_tokens: 7, output_tokens: 3 },
    });
    const [logged] = api.requests;
    expect(logged && toolResultsOf(logged)).toEqual([
      { toolUseId: "t1", content: "out", isError: false },
    ]);
  });

  it("side requests and token counts take no step of the script", async () => {
    api.script([{ text: "the answer" }]);

    const side = await post("/v1/messages", {
      model: "claude-haiku",
      max_tokens: 50,
      messages: [],
    });
    const count = await post("/v1/messages/count_tokens", { messages: [] });
    const other = await fetch(`${api.baseUrl}/v1/models`);
    const main = await post("/v1/messages", { tools: MAIN_TOOLS, messages: [] });

    expect(await side.json()).toMatchObject({ content: [{ type: "text", text: "OK" }] });
    expect(await count.json()).toEqual({ input_tokens: 7 });
    expect(other.status).toBe(404);
    expect(await main.json()).toMatchObject({ content: [{ type: "text", text: "the answer" }] });
    expect(api.requests.map((logged) => logged.served)).toEqual([
      "side",
      "count-tokens",
      "not-found",
      "text",
    ]);
  });

  it("past the script's end, or for a tool not offered, answers 400 (which Claude Code does not retry)", async () => {
    api.script([{ toolCalls: [{ name: "Write", input: {} }], text: "never" }]);

    const unoffered = await post("/v1/messages", { tools: MAIN_TOOLS, messages: [] });
    const answered = await post("/v1/messages", { tools: MAIN_TOOLS, messages: [] });
    const exhausted = await post("/v1/messages", { tools: MAIN_TOOLS, messages: [] });

    expect(unoffered.status).toBe(400);
    expect(await unoffered.json()).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringContaining("Write") },
    });
    expect(answered.status).toBe(200);
    expect(exhausted.status).toBe(400);
    expect(api.requests.map((logged) => logged.served)).toEqual(["error", "text", "exhausted"]);
  });

  it("as a proxy, logs and refuses every CONNECT", async () => {
    const { port, hostname } = new URL(api.baseUrl);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const connect = httpRequest({
        host: hostname,
        port,
        method: "CONNECT",
        path: "api.anthropic.com:443",
      });
      connect.on("connect", (response, socket) => {
        socket.destroy();
        resolve(response.statusCode);
      });
      connect.on("error", reject);
      connect.end();
    });

    expect(status).toBe(403);
    expect(api.requests).toMatchObject([{ method: "CONNECT", path: "api.anthropic.com:443" }]);
  });
});
