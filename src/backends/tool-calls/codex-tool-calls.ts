/**
 * The tool calls in `codex exec --json`'s events: `item.started` starts a
 * command, a file change, an MCP call or a web search, `item.completed` ends it
 * with its status (and a command's exit code).
 */
import { isPlainObject } from "../../plain-object.js";
import type { ToolActivity, ToolCall } from "../../ports/backend.js";
import { nameToolCall, oneLine } from "./name-tool-call.js";

/** Items that are the model's words, not its work. */
const NOT_TOOLS: ReadonlySet<string> = new Set([
  "agent_message",
  "reasoning",
  "todo_list",
  "error",
]);

/** Returns a reader that turns each event, in order, into the tool activity it carries. */
export function makeCodexToolCallReader(): (event: unknown) => ToolActivity[] {
  const started = new Set<string>();
  return (event) => {
    if (!isPlainObject(event) || !isPlainObject(event.item)) return [];
    const { item } = event;
    if (typeof item.id !== "string" || typeof item.type !== "string" || NOT_TOOLS.has(item.type)) {
      return [];
    }
    const call = callOf(item.id, item.type, item);
    if (event.type === "item.started") {
      started.add(item.id);
      return [{ phase: "start", call }];
    }
    if (event.type !== "item.completed") return [];
    const start: ToolActivity[] = started.delete(item.id) ? [] : [{ phase: "start", call }];
    const exitCode = typeof item.exit_code === "number" ? item.exit_code : undefined;
    const failed = item.status === "failed" || (exitCode !== undefined && exitCode !== 0);
    return [
      ...start,
      { phase: "end", call, failed, ...(exitCode === undefined ? {} : { exitCode }) },
    ];
  };
}

function callOf(id: string, type: string, item: Record<string, unknown>): ToolCall {
  if (type === "file_change" && Array.isArray(item.changes)) {
    const changes = item.changes.filter(isPlainObject);
    const paths = changes.map((change) => String(change.path ?? "")).filter(Boolean);
    const added = changes.length > 0 && changes.every((change) => change.kind === "add");
    return { id, tool: type, action: added ? "write" : "edit", target: oneLine(paths.join(", ")) };
  }
  if (type === "mcp_tool_call") {
    const tool = `mcp:${String(item.server ?? "?")}/${String(item.tool ?? "?")}`;
    return { ...nameToolCall(id, tool, item.arguments), action: "other" };
  }
  if (type === "command_execution" && typeof item.command === "string") {
    return { id, tool: type, action: "command", target: oneLine(unwrapShell(item.command)) };
  }
  return nameToolCall(id, type, item);
}

/** codex runs each command as `bash -lc '<command>'`: the command is what the model asked for. */
function unwrapShell(command: string): string {
  const wrapped = /^(?:\/\S*\/)?(?:ba|z)?sh -l?c '(.*)'$/s.exec(command);
  return wrapped?.[1] === undefined ? command : wrapped[1].replaceAll("'\\''", "'");
}
