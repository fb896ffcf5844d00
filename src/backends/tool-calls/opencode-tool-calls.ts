/**
 * The tool calls in `opencode run --format json`'s events: each `tool_use`
 * event carries a call that has ended (its state `completed` or `error`), with
 * the tool's input and, for a command, its exit in the state's metadata.
 */
import { isPlainObject } from "../../plain-object.js";
import type { ToolActivity } from "../../ports/backend.js";
import { nameToolCall } from "./name-tool-call.js";

/** Turns one event into the tool activity it carries: a call's start and end at once. */
export function readOpencodeToolCall(event: unknown): ToolActivity[] {
  if (!isPlainObject(event) || event.type !== "tool_use" || !isPlainObject(event.part)) return [];
  const { part } = event;
  const state = isPlainObject(part.state) ? part.state : {};
  if (state.status !== "completed" && state.status !== "error") return [];
  const id = String(part.callID ?? part.id ?? "");
  const call = nameToolCall(id, String(part.tool ?? "tool"), state.input);
  const metadata = isPlainObject(state.metadata) ? state.metadata : {};
  const exitCode = typeof metadata.exit === "number" ? metadata.exit : undefined;
  const failed = state.status === "error" || (exitCode !== undefined && exitCode !== 0);
  return [
    { phase: "start", call },
    { phase: "end", call, failed, ...(exitCode === undefined ? {} : { exitCode }) },
  ];
}
