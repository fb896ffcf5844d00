import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, generateText, jsonSchema, Output, streamText, tool } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OpenaiServer, startOpenaiServer } from "./openai-server.js";

let server: OpenaiServer;
beforeEach(async () => {
  server = await startOpenaiServer({
    apiKey: "sk-test",
    usage: { promptTokens: 30, completionTokens: 7, cachedTokens: 10 },
  });
});
afterEach(() => server.close());

function model(apiKey = "sk-test") {
  return createOpenAICompatible({
    name: "fake",
    baseURL: server.baseURL,
    apiKey,
    includeUsage: true,
    supportsStructuredOutputs: true,
  }).chatModel("fake-model");
}

const echo = tool({
  description: "echo",
  inputSchema: jsonSchema<{ word: string }>({
    type: "object",
    properties: { word: { type: "string" } },
    required: ["word"],
  }),
  execute: async ({ word }) => `echo ${word}`,
});

describe("the fake OpenAI-compatible endpoint, through the AI SDK", () => {
  it("answers tool calls and text without streaming, with usage, and keeps the requests", async () => {
    server.script([{ toolCalls: [{ name: "echo", arguments: { word: "hi" } }] }, { text: "done" }]);
    const result = await generateText({
      model: model(),
      prompt: "say hi",
      tools: { echo },
      stopWhen: () => false,
      maxRetries: 0,
    });
    expect(result.text).toBe("done");
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      toolName: "echo",
      input: { word: "hi" },
    });
    expect(result.totalUsage).toMatchObject({ inputTokens: 60, outputTokens: 14 });
    expect(result.usage.inputTokenDetails.cacheReadTokens).toBe(10);
    const [, second] = server.requests;
    expect(second?.messages.at(-1)).toMatchObject({ role: "tool", content: "echo hi" });
    expect(second?.messages.at(-2)?.tool_calls?.[0]?.function.name).toBe("echo");
  });

  it("streams text and tool-call arguments in chunks, usage last, ended by [DONE]", async () => {
    server.script([
      { toolCalls: [{ name: "echo", arguments: { word: "yo" } }] },
      { text: "all good" },
    ]);
    const result = streamText({
      model: model(),
      prompt: "go",
      tools: { echo },
      stopWhen: () => false,
      maxRetries: 0,
    });
    expect(await result.text).toBe("all good");
    expect((await result.steps)[0]?.toolResults[0]?.output).toBe("echo yo");
    expect((await result.totalUsage).outputTokens).toBe(14);
    expect(server.requests[0]?.stream).toBe(true);
  });

  it("records the response_format json_schema it was sent", async () => {
    const schema = {
      type: "object",
      properties: { ok: { type: "boolean" } },
      required: ["ok"],
      additionalProperties: false,
    };
    server.script([{ text: '{"ok":true}' }]);
    const result = await generateText({
      model: model(),
      prompt: "answer",
      output: Output.object({ schema: jsonSchema(schema) }),
      maxRetries: 0,
    });
    expect(result.output).toEqual({ ok: true });
    expect(server.requests[0]?.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { schema },
    });
  });

  it("answers 429 with retry-after, and 401 to a wrong key", async () => {
    server.script([{ status: 429, retryAfter: "3" }]);
    const limited = await generateText({ model: model(), prompt: "x", maxRetries: 0 }).catch(
      (error: unknown) => error,
    );
    expect(APICallError.isInstance(limited)).toBe(true);
    expect(limited).toMatchObject({ statusCode: 429, responseHeaders: { "retry-after": "3" } });
    const refused = await generateText({ model: model("wrong"), prompt: "x", maxRetries: 0 }).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ statusCode: 401 });
  });
});
