/**
 * The openai-compatible backend's transcript as replay reads it: the AI SDK's
 * messages of the query (`{role, content: [parts]}`). The answer is the last
 * assistant message's: its `answer` tool call (docs/backends.md#openai-compatible-structured-output),
 * else its text; `write` and `edit` calls whose result is no error are the
 * file changes.
 */
import { isPlainObject } from "../../plain-object.js";
import type { ChangeCollector, Reading } from "./transcript-reading.js";

/** The tool whose input is the answer; the openai-compatible backend's `ANSWER_TOOL`. */
const ANSWER_TOOL = "answer";

type Part = Record<string, unknown>;

/** An AI SDK message: a role and a list of parts (the scripted backend's content is a string). */
function partsOf(message: Record<string, unknown>): Part[] | undefined {
  if (typeof message.role !== "string" || !Array.isArray(message.content)) return undefined;
  return message.content.filter(isPlainObject);
}

/** The ids of the tool calls that answered with an error. */
export function failedToolCallIds(messages: readonly Record<string, unknown>[]): Set<string> {
  const failed = new Set<string>();
  for (const message of messages) {
    if (message.role !== "tool") continue;
    for (const part of partsOf(message) ?? []) {
      if (part.type !== "tool-result" || !isPlainObject(part.output)) continue;
      const { type, value } = part.output;
      const refused = typeof value === "string" && value.startsWith("error:");
      if (type === "error-text" || type === "error-json" || refused) {
        failed.add(String(part.toolCallId));
      }
    }
  }
  return failed;
}

export function readModelMessage(
  message: Record<string, unknown>,
  reading: Reading,
  changes: ChangeCollector,
  failedCallIds: ReadonlySet<string>,
): void {
  const parts = message.role === "assistant" ? partsOf(message) : undefined;
  if (parts === undefined) return;
  // Each model call ends in one assistant message; the query's answer is the last one's.
  reading.text = parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => String(part.text))
    .join("");
  reading.structuredOutput = undefined;
  // An answer in the final text was asked in a strict schema (docs/backends.md#strict-schema).
  reading.jsonText = true;
  reading.strictSchema = true;
  for (const part of parts) {
    if (part.type !== "tool-call" || typeof part.toolName !== "string") continue;
    if (part.toolName === ANSWER_TOOL) {
      reading.structuredOutput = part.input;
      reading.text = JSON.stringify(part.input);
      reading.jsonText = false;
      reading.strictSchema = false;
      continue;
    }
    reading.toolsUsed.push(part.toolName);
    if (failedCallIds.has(String(part.toolCallId)) || !isPlainObject(part.input)) continue;
    const input = part.input;
    if (part.toolName === "write") changes.write(input.path, input.content);
    if (part.toolName === "edit")
      changes.edit(input.path, input.old_string, input.new_string, false);
  }
}
