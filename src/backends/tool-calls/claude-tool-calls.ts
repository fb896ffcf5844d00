/**
 * The tool calls in Claude Code's stream-json messages (the Agent SDK's and
 * `claude -p --output-format stream-json`'s alike): an assistant message's
 * `tool_use` block starts a call, the `tool_result` that names its id ends it.
 */
import { isPlainObject } from "../../plain-object.js";
import type { ToolActivity, ToolCall } from "../../ports/backend.js";
import { nameToolCall } from "./name-tool-call.js";

/** The tool through which Claude Code hands over the structured answer: the answer, not work. */
const ANSWER_TOOL = "StructuredOutput";

/** Returns a reader that turns each message, in order, into the tool activity it carries. */
export function makeClaudeToolCallReader(): (message: unknown) => ToolActivity[] {
  const open = new Map<string, ToolCall>();
  return (message) => {
    if (!isPlainObject(message) || !isPlainObject(message.message)) return [];
    const content = message.message.content;
    if (!Array.isArray(content)) return [];
    const activity: ToolActivity[] = [];
    for (const block of content) {
      if (!isPlainObject(block)) continue;
      if (message.type === "assistant" && block.type === "tool_use") {
        const { id, name } = block;
        if (typeof id !== "string" || typeof name !== "string" || name === ANSWER_TOOL) continue;
        const call = nameToolCall(id, name, block.input);
        open.set(id, call);
        activity.push({ phase: "start", call });
      }
      if (message.type === "user" && block.type === "tool_result") {
        const call = open.get(String(block.tool_use_id));
        if (call === undefined) continue;
        open.delete(call.id);
        activity.push(
          ended(call, block.is_error === true, textOf(block.content), message.tool_use_result),
        );
      }
    }
    return activity;
  };
}

/**
 * How a call ended. Claude Code answers a failed command with its exit code first
 * ("Exit code 1"); a command whose non-zero exit it reads as an answer (`test`, `grep`
 * finding nothing) is no error, and says so in `returnCodeInterpretation` without the code.
 */
function ended(call: ToolCall, failed: boolean, text: string, result: unknown): ToolActivity {
  if (call.action !== "command") return { phase: "end", call, failed };
  const interpreted = isPlainObject(result) && typeof result.returnCodeInterpretation === "string";
  const exitCode = failed
    ? Number(/exit code (\d+)/i.exec(text)?.[1] ?? Number.NaN)
    : interpreted
      ? Number.NaN
      : 0;
  return { phase: "end", call, failed, ...(Number.isNaN(exitCode) ? {} : { exitCode }) };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content.slice(0, 200);
  if (!Array.isArray(content)) return "";
  const first = content.find((part) => isPlainObject(part) && typeof part.text === "string");
  return isPlainObject(first) ? String(first.text).slice(0, 200) : "";
}
