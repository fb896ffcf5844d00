import { toolCallOutcome, toolCallText } from "../observe/tool-call-text.js";
import type { RunEventOf } from "../ports/events.js";

/**
 * The line of a tool call that ended (docs/observe.md#tool-calls): what it did, a command's
 * exit, a failure, and its time when it took a second or more.
 */
export function toolCallLine(
  event: RunEventOf<"tool-call">,
  paint: (style: "red" | "dim", text: string) => string,
  seconds: (ms: number) => string,
): string {
  const outcome = toolCallOutcome(event);
  const shown =
    outcome.text === ""
      ? ""
      : outcome.bad
        ? ` ${outcome.text.startsWith("exit") ? "· " : ""}${paint("red", outcome.text)}`
        : paint("dim", ` · ${outcome.text}`);
  const took = event.durationMs >= 1000 ? paint("dim", ` ${seconds(event.durationMs)}`) : "";
  return `    ${toolCallText(event)}${shown}${took}`;
}
