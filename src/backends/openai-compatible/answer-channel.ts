/**
 * How the model gives the step's structured answer
 * (docs/backends.md#openai-compatible-structured-output): `json-schema` asks
 * the endpoint for `response_format: json_schema` on every call, the schema
 * made strict; `tool` offers an `answer` tool whose input is the answer and
 * whose call ends the query. Imported only with the SDK.
 */
import { jsonSchema, type OutputInterface, type Tool, tool } from "ai";
import type { JsonSchema } from "../../ports/runner-config.js";
import { strictSchema } from "../agent-cli/strict-schema.js";

export type { StructuredOutputMode } from "./instructions.js";

/** The tool that carries the answer in `tool` mode; not a tool of the work. */
export const ANSWER_TOOL = "answer";

/** The answer tool: no `execute`, so its call ends the SDK's tool loop. */
export function answerTool(schema: JsonSchema): Tool {
  return tool({
    description: "Give your final answer. Its input is the answer; call it once, at the end.",
    inputSchema: jsonSchema(schema),
  });
}

/**
 * The SDK's structured output with the request's schema, but its parsing left
 * to closer: the final text comes back as it is, never a throw, so usage and
 * messages survive an answer that does not parse.
 */
export function jsonSchemaOutput(schema: JsonSchema): OutputInterface<string, string, never> {
  return {
    name: "object",
    responseFormat: Promise.resolve({ type: "json", schema: strictSchema(schema), name: "answer" }),
    parseCompleteOutput: async ({ text }) => text,
    parsePartialOutput: async () => undefined,
    createElementStreamTransform: () => undefined,
  };
}
