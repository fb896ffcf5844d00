/**
 * What a tool call did, named the same way whatever the backend calls its tools
 * (docs/observe.md#tool-calls): Claude Code's `Write`, codex's `file_change`,
 * opencode's `write` and the openai-compatible backend's `write` are all writes.
 */
import { isPlainObject } from "../../plain-object.js";
import type { ToolAction, ToolCall } from "../../ports/backend.js";

/** The longest target kept: a command line or a pattern is cut there, with an ellipsis. */
const MAX_TARGET_CHARS = 200;

const ACTIONS: Readonly<Record<string, ToolAction>> = {
  write: "write",
  create_file: "write",
  edit: "edit",
  multiedit: "edit",
  notebookedit: "edit",
  patch: "edit",
  apply_patch: "edit",
  file_change: "edit",
  read: "read",
  ls: "read",
  list: "read",
  view: "read",
  bash: "command",
  shell: "command",
  local_shell: "command",
  command_execution: "command",
  grep: "search",
  glob: "search",
  search: "search",
  websearch: "search",
  web_search: "search",
  webfetch: "fetch",
  fetch: "fetch",
};

/** The input fields that name what a call acts on, most telling first. */
const TARGET_FIELDS = [
  "file_path",
  "filePath",
  "notebook_path",
  "path",
  "command",
  "cmd",
  "pattern",
  "url",
  "query",
  "description",
] as const;

export function actionOf(tool: string): ToolAction {
  return ACTIONS[tool.toLowerCase()] ?? "other";
}

/** A call of `tool` with `input` (the tool's arguments as the backend reported them). */
export function nameToolCall(id: string, tool: string, input: unknown): ToolCall {
  return { id, tool, action: actionOf(tool), target: targetOf(input) };
}

/** What the input names: a path, a command line, a pattern; "" when nothing does. */
export function targetOf(input: unknown): string {
  if (typeof input === "string") return oneLine(input);
  if (!isPlainObject(input)) return "";
  for (const field of TARGET_FIELDS) {
    const value = input[field];
    if (typeof value === "string" && value.trim() !== "") return oneLine(value);
    if (Array.isArray(value) && value.every((part) => typeof part === "string")) {
      return oneLine(value.join(" "));
    }
  }
  return "";
}

/** The first line of a text, cut to the longest kept target. */
export function oneLine(text: string): string {
  const lines = text.trim().split("\n");
  const first = lines[0] ?? "";
  const cut = first.length > MAX_TARGET_CHARS ? `${first.slice(0, MAX_TARGET_CHARS - 1)}…` : first;
  return lines.length > 1 && cut === first ? `${cut} …` : cut;
}
