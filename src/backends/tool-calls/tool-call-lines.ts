import type { ToolActivity } from "../../ports/backend.js";

/**
 * A listener for an agent CLI's JSON lines that hands each tool call they carry to
 * `onToolCall` as the line arrives; none when nobody listens. Lines that are not JSON are
 * the CLI's own business and are passed over.
 */
export function toolCallsFromLines(
  read: (event: unknown) => readonly ToolActivity[],
  onToolCall: ((activity: ToolActivity) => void) | undefined,
): ((line: string) => void) | undefined {
  if (onToolCall === undefined) return undefined;
  return (line) => {
    if (!line.startsWith("{")) return;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      return;
    }
    for (const activity of read(event)) onToolCall(activity);
  };
}
