/**
 * Reads one recorded transcript (whatever backend wrote it) as a replay turn:
 * the final text, the structured output, the tools used, and the file
 * changes that can be re-applied. Each backend's transcript is read the way
 * that backend read it into its answer (docs/replay.md#backends).
 */
import { lastJsonObject } from "../../completion/json-in-text.js";
import { stringOr } from "../../json-values.js";
import { isPlainObject } from "../../plain-object.js";
import type { JsonSchema } from "../../ports/runner-config.js";
import { takeUsageLine } from "../agent-cli/command-usage.js";
import { dropNullOptionals } from "../agent-cli/strict-schema.js";
import { failedToolCallIds, readModelMessage } from "./model-messages.js";
import type { ReplayTurn } from "./session.js";
import { ChangeCollector, emptyReading, type Reading } from "./transcript-reading.js";

/** What the record holds of an answer besides its transcript. */
export interface RecordedAnswerFacts {
  /** The `backend-end` event's `hasStructuredOutput`: whether the backend gave one. */
  readonly hasStructuredOutput?: boolean;
  /** The schema the query asked for: the nulls of a strict schema's answer are read against it. */
  readonly schema?: JsonSchema;
}

export function turnFromTranscript(
  value: unknown,
  recordedCwd: string,
  facts: RecordedAnswerFacts = {},
): ReplayTurn {
  const messages = Array.isArray(value)
    ? value.filter(isPlainObject)
    : isPlainObject(value)
      ? [value]
      : [];
  const replayed = messages.find(
    (message) => message.type === "replay-turn" && isPlainObject(message.turn),
  );
  if (replayed !== undefined) return replayed.turn as ReplayTurn;
  const changes = new ChangeCollector(recordedCwd);
  const reading = emptyReading();
  const failedClaudeTools = failedClaudeToolIds(messages);
  const failedModelTools = failedToolCallIds(messages);
  for (const message of messages) {
    readClaudeMessage(message, reading, changes, failedClaudeTools);
    readCodexEvent(message, reading);
    readOpencodeEvent(message, reading, changes);
    readModelMessage(message, reading, changes, failedModelTools);
    readPlainMessage(message, reading);
    readCloserNote(message, reading);
  }
  const structuredOutput = structuredOutputOf(reading, facts);
  const hasFiles = Object.keys(changes.files).length > 0;
  return {
    ...(reading.text === undefined ? {} : { text: reading.text }),
    ...(structuredOutput === undefined ? {} : { structuredOutput }),
    ...(hasFiles ? { files: changes.files } : {}),
    ...(changes.edits.length > 0 ? { edits: changes.edits } : {}),
    ...(reading.toolsUsed.length > 0 ? { toolsUsed: reading.toolsUsed } : {}),
  };
}

/**
 * The structured output the backend answered with: none when the record says
 * it gave none or it refused the one it got (it did not fit the schema).
 */
function structuredOutputOf(reading: Reading, facts: RecordedAnswerFacts): unknown {
  if (facts.hasStructuredOutput === false || reading.refused) return undefined;
  let value = reading.structuredOutput;
  if (value === undefined && reading.jsonText && reading.text !== undefined) {
    value = parseObject(reading.text);
  }
  if (value === undefined || !reading.strictSchema || facts.schema === undefined) return value;
  // A null optional of the strict schema reads as absent (docs/backends.md#strict-schema).
  return dropNullOptionals(value, facts.schema);
}

function readClaudeMessage(
  message: Record<string, unknown>,
  reading: Reading,
  changes: ChangeCollector,
  failedToolIds: ReadonlySet<string>,
): void {
  if (message.type === "result") {
    reading.text = stringOr(message.result, reading.text);
    if (message.structured_output !== undefined && message.structured_output !== null) {
      reading.structuredOutput = message.structured_output;
    }
    return;
  }
  // An assistant message with `error` is Claude Code's report of an API failure, not the model's words.
  if (message.type !== "assistant" || message.error !== undefined) return;
  if (!isPlainObject(message.message)) return;
  const content = Array.isArray(message.message.content)
    ? message.message.content.filter(isPlainObject)
    : [];
  const texts = content.filter((block) => block.type === "text").map((block) => String(block.text));
  if (texts.length > 0) reading.text = texts.join("\n");
  for (const block of content) {
    if (block.type !== "tool_use" || typeof block.name !== "string") continue;
    reading.toolsUsed.push(block.name);
    if (failedToolIds.has(String(block.id)) || !isPlainObject(block.input)) continue;
    const input = block.input;
    if (block.name === "Write") changes.write(input.file_path, input.content);
    if (block.name === "Edit") {
      changes.edit(input.file_path, input.old_string, input.new_string, input.replace_all);
    }
    if (block.name === "MultiEdit" && Array.isArray(input.edits)) {
      for (const edit of input.edits.filter(isPlainObject)) {
        changes.edit(input.file_path, edit.old_string, edit.new_string, edit.replace_all);
      }
    }
  }
}

function failedClaudeToolIds(messages: readonly Record<string, unknown>[]): Set<string> {
  const failed = new Set<string>();
  for (const message of messages) {
    if (message.type !== "user" || !isPlainObject(message.message)) continue;
    const content = Array.isArray(message.message.content) ? message.message.content : [];
    for (const block of content.filter(isPlainObject)) {
      if (block.type === "tool_result" && block.is_error === true)
        failed.add(String(block.tool_use_id));
    }
  }
  return failed;
}

/** codex: the last agent message is the answer; asked in a strict schema, it is that JSON. */
function readCodexEvent(message: Record<string, unknown>, reading: Reading): void {
  if (message.type !== "item.completed" || !isPlainObject(message.item)) return;
  const item = message.item;
  if (item.type === "agent_message") {
    reading.text = stringOr(item.text, reading.text);
    reading.jsonText = true;
    reading.strictSchema = true;
  } else if (item.type !== "reasoning" && typeof item.type === "string") {
    reading.toolsUsed.push(item.type);
  }
}

/** opencode: the answer is the texts of the last message that said anything, a line apart. */
function readOpencodeEvent(
  message: Record<string, unknown>,
  reading: Reading,
  changes: ChangeCollector,
): void {
  if (typeof message.sessionID !== "string" || !isPlainObject(message.part)) return;
  const part = message.part;
  if (message.type === "text" && typeof part.text === "string") {
    const messageId = stringOr(part.messageID, "");
    const said = reading.textsByMessage.get(messageId) ?? [];
    reading.textsByMessage.delete(messageId);
    reading.textsByMessage.set(messageId, [...said, part.text]);
    reading.text = [...reading.textsByMessage.values()].at(-1)?.join("\n");
  }
  if (message.type !== "tool_use" || typeof part.tool !== "string") return;
  reading.toolsUsed.push(part.tool);
  const state = isPlainObject(part.state) ? part.state : {};
  if (state.status !== "completed" || !isPlainObject(state.input)) return;
  const input = state.input;
  if (part.tool === "write") changes.write(input.filePath, input.content);
  if (part.tool === "edit")
    changes.edit(input.filePath, input.oldString, input.newString, input.replaceAll);
}

/**
 * The scripted backend's `{role, content, structuredOutput}`, and the command
 * backend's `{stdout}`, whose usage lines are not part of the answer
 * (docs/backends.md#command-usage).
 */
function readPlainMessage(message: Record<string, unknown>, reading: Reading): void {
  if (message.role === "assistant" && typeof message.content === "string") {
    reading.text = message.content;
    if (message.structuredOutput !== undefined) reading.structuredOutput = message.structuredOutput;
  }
  if (typeof message.stdout === "string" && message.type === undefined)
    reading.text = takeUsageLine(message.stdout).text;
}

/** What closer noted in the transcript: a structured output that did not fit the schema. */
function readCloserNote(message: Record<string, unknown>, reading: Reading): void {
  if (message.type === "closer" && message.subtype === "structured_output_invalid") {
    reading.refused = true;
  }
}

/** The final text as JSON: all of it, or else the last JSON object in it. */
function parseObject(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text.trim());
    if (isPlainObject(value)) return value;
  } catch {
    // not JSON as a whole
  }
  return lastJsonObject(text);
}
