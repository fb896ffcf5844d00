import { type Json, num, obj, str } from "../record/loose-json.js";
import { meaningfulLines } from "../tool-output/meaningful-lines.js";
import { joinOutput } from "../tool-output/output-lines.js";
import type { SetupView } from "./run-view.js";
import { OUTPUT_TAIL_CHARS, QUOTED_LINES, wholeText } from "./validator-check.js";

/**
 * A `setup` event as a command of the run view (docs/observe.md#setup-progress): its output whole
 * from its payloads, and for a failure its meaningful lines (docs/completion.md#quoted-output).
 */
export async function setupCommand(event: Json, runDir: string): Promise<SetupView> {
  const payloads = obj(event.payloads);
  const stdout = await wholeText(event.stdout, str(payloads?.stdout), runDir);
  const stderr = await wholeText(event.stderr, str(payloads?.stderr), runDir);
  const output = joinOutput(stdout ?? "", stderr ?? "").slice(-OUTPUT_TAIL_CHARS);
  const exitCode = num(event.exitCode) ?? 1;
  const timedOut = event.timedOut === true;
  const quoted = exitCode !== 0 || timedOut ? meaningfulLines(output, QUOTED_LINES) : [];
  return {
    command: str(event.command) ?? "",
    exitCode,
    durationMs: num(event.durationMs) ?? 0,
    ...(timedOut ? { timedOut } : {}),
    ...(output.trim() === "" ? {} : { output }),
    ...(quoted.length === 0 ? {} : { quoted }),
  };
}
