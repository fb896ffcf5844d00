/**
 * What the openai-compatible backend tells the model besides the prompt, and
 * which of its tools a request offers (docs/backends.md#openai-compatible).
 */
import type { BackendRequest } from "../../ports/backend.js";

/** How the model gives the step's structured answer. */
export type StructuredOutputMode = "json-schema" | "tool";

/** Each tool of the tool set, with the Claude Code tool names agent.json may list for it. */
const TOOL_NAMES: Readonly<Record<string, readonly string[]>> = {
  read: ["read"],
  write: ["write"],
  edit: ["edit", "multiedit"],
  list: ["list", "glob", "ls"],
  grep: ["grep"],
  bash: ["bash"],
};

/** The tools that change nothing: all a `plan` (read-only) query gets. */
const READ_ONLY = new Set(["read", "list", "grep"]);

/** Whether the request offers the tool: not in `disallowedTools`, and read-only under `plan`. */
export function toolFilterOf(request: BackendRequest): (name: string) => boolean {
  const disallowed = new Set(request.disallowedTools.map((name) => name.toLowerCase()));
  return (name) => {
    if (request.permissionMode === "plan" && !READ_ONLY.has(name)) return false;
    return !(TOOL_NAMES[name] ?? [name]).some((alias) => disallowed.has(alias));
  };
}

const BASE_PROMPT = [
  "You are a software engineer working in a repository through tools:",
  "read, write and edit files, list and grep them, and run shell commands with bash.",
  "Every path is relative to the repository's root; you cannot leave it.",
  "Do the task you are given, check your work by running the project's tests, and then answer.",
].join(" ");

const ANSWER_BY_MODE: Readonly<Record<StructuredOutputMode, string>> = {
  "json-schema":
    "When you are done, your final message is your answer alone: one JSON object in the requested format, nothing else.",
  tool: "When you are done, call the `answer` tool exactly once with your final answer as its input; that call ends your turn.",
};

/** The system prompt of a query: closer's own, the agent's addition, and how to answer. */
export function systemPromptOf(request: BackendRequest, mode: StructuredOutputMode): string {
  return [
    BASE_PROMPT,
    ...(request.systemPrompt === undefined ? [] : [request.systemPrompt]),
    ...(request.schema === undefined ? [] : [ANSWER_BY_MODE[mode]]),
  ].join("\n\n");
}
