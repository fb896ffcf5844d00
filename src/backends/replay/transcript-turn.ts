/**
 * Reads one recorded transcript (whatever backend wrote it) as a replay turn:
 * the final text, the structured output, the tools used, and the file
 * changes that can be re-applied.
 */
import path from "node:path";
import { stringOr } from "../../json-values.js";
import { isPlainObject } from "../../plain-object.js";
import type { FileEdit, ReplayTurn } from "./session.js";

/** Collects a turn's file changes as whole files plus edits, relative to the recorded tree. */
class ChangeCollector {
  readonly files: Record<string, string | null> = {};
  readonly edits: FileEdit[] = [];

  constructor(private readonly recordedCwd: string) {}

  write(file: unknown, content: unknown): void {
    const relative = this.relative(file);
    if (relative === undefined || typeof content !== "string") return;
    this.files[relative] = content;
    // Edits before a whole-file write are overwritten by it.
    for (let index = this.edits.length - 1; index >= 0; index--) {
      if (this.edits[index]?.path === relative) this.edits.splice(index, 1);
    }
  }

  edit(file: unknown, oldText: unknown, newText: unknown, replaceAll: unknown): void {
    const relative = this.relative(file);
    if (relative === undefined || typeof oldText !== "string" || typeof newText !== "string")
      return;
    if (oldText === "") {
      this.write(file, newText);
      return;
    }
    const written = this.files[relative];
    if (typeof written === "string") {
      this.files[relative] =
        replaceAll === true
          ? written.split(oldText).join(newText)
          : written.replace(oldText, () => newText);
      return;
    }
    this.edits.push({
      path: relative,
      oldText,
      newText,
      ...(replaceAll === true ? { replaceAll: true } : {}),
    });
  }

  private relative(file: unknown): string | undefined {
    if (typeof file !== "string" || file === "") return undefined;
    const relative = path.isAbsolute(file)
      ? path.relative(this.recordedCwd, file)
      : path.normalize(file);
    // Changes outside the recorded working tree (scratch files) are not replayed.
    if (
      relative === "" ||
      relative === ".." ||
      relative.startsWith(`..${path.sep}`) ||
      path.isAbsolute(relative)
    ) {
      return undefined;
    }
    return relative;
  }
}

interface Reading {
  text?: string;
  structuredOutput?: unknown;
  toolsUsed: string[];
  jsonText: boolean;
}

export function turnFromTranscript(value: unknown, recordedCwd: string): ReplayTurn {
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
  const reading: Reading = { toolsUsed: [], jsonText: false };
  const failedToolIds = failedClaudeToolIds(messages);
  for (const message of messages) {
    readClaudeMessage(message, reading, changes, failedToolIds);
    readCodexEvent(message, reading);
    readOpencodeEvent(message, reading, changes);
    readPlainMessage(message, reading);
  }
  if (reading.structuredOutput === undefined && reading.jsonText && reading.text !== undefined) {
    reading.structuredOutput = parseObject(reading.text);
  }
  const hasFiles = Object.keys(changes.files).length > 0;
  return {
    ...(reading.text === undefined ? {} : { text: reading.text }),
    ...(reading.structuredOutput === undefined
      ? {}
      : { structuredOutput: reading.structuredOutput }),
    ...(hasFiles ? { files: changes.files } : {}),
    ...(changes.edits.length > 0 ? { edits: changes.edits } : {}),
    ...(reading.toolsUsed.length > 0 ? { toolsUsed: reading.toolsUsed } : {}),
  };
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
  if (message.type !== "assistant" || !isPlainObject(message.message)) return;
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

function readCodexEvent(message: Record<string, unknown>, reading: Reading): void {
  if (message.type !== "item.completed" || !isPlainObject(message.item)) return;
  const item = message.item;
  if (item.type === "agent_message") {
    reading.text = stringOr(item.text, reading.text);
    reading.jsonText = true;
  } else if (item.type !== "reasoning" && typeof item.type === "string") {
    reading.toolsUsed.push(item.type);
  }
}

function readOpencodeEvent(
  message: Record<string, unknown>,
  reading: Reading,
  changes: ChangeCollector,
): void {
  if (typeof message.sessionID !== "string" || !isPlainObject(message.part)) return;
  const part = message.part;
  if (message.type === "text" && typeof part.text === "string") reading.text = part.text;
  if (message.type !== "tool_use" || typeof part.tool !== "string") return;
  reading.toolsUsed.push(part.tool);
  const state = isPlainObject(part.state) ? part.state : {};
  if (state.status !== "completed" || !isPlainObject(state.input)) return;
  const input = state.input;
  if (part.tool === "write") changes.write(input.filePath, input.content);
  if (part.tool === "edit")
    changes.edit(input.filePath, input.oldString, input.newString, input.replaceAll);
}

/** The scripted backend's `{role, content, structuredOutput}` and the command backend's `{stdout}`. */
function readPlainMessage(message: Record<string, unknown>, reading: Reading): void {
  if (message.role === "assistant") {
    reading.text = stringOr(message.content, reading.text);
    if (message.structuredOutput !== undefined) reading.structuredOutput = message.structuredOutput;
  }
  if (typeof message.stdout === "string" && message.type === undefined)
    reading.text = message.stdout;
}

function parseObject(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text.trim());
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
