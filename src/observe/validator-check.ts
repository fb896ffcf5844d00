import { type Json, obj, optionalNumber, optionalString, str } from "../record/loose-json.js";
import { readPayload } from "../record/run-folder-reader.js";
import { meaningfulLines, quoteOutput } from "../tool-output/meaningful-lines.js";
import type { CheckView } from "./run-view.js";

/** What a check found is kept as its last characters: a runner prints its failures last. */
export const OUTPUT_TAIL_CHARS = 64 * 1024;

/** Meaningful lines the view quotes of a failed check's output (docs/completion.md#quoted-output). */
export const QUOTED_LINES = 12;

/** Lines a string param is quoted by (`errorOutput`): the output's own lines follow. */
const PARAM_LINES = 3;

/** A `validator-end` event as a check of the run view: its output whole from its payload, and what it extracted. */
export async function validatorCheck(event: Json, runDir: string): Promise<CheckView> {
  const payloads = obj(event.payloads);
  const stdout = await wholeText(event.stdout, str(payloads?.stdout), runDir);
  const stderr = await wholeText(event.stderr, str(payloads?.stderr), runDir);
  const output = [str(event.configError), stderr, stdout]
    .filter((text): text is string => text !== undefined && text.trim() !== "")
    .join("\n")
    .slice(-OUTPUT_TAIL_CHARS);
  const extracted = describeParams(obj(event.params), output);
  // What the check extracted (failed tests, changed files) goes last, where a reader of the tail looks.
  const found = [output, ...extracted].filter(Boolean).join("\n");
  // Its quote names what it extracted first, then the output's meaningful lines, never a banner.
  const quoted =
    event.valid === true ? [] : [...extracted, ...meaningfulLines(output, QUOTED_LINES)];
  return {
    kind: "validator",
    name: str(event.validator) ?? "validator",
    valid: event.valid === true,
    ...optionalString("pattern", event.pattern),
    ...optionalNumber("durationMs", event.durationMs),
    ...optionalNumber("exitCode", event.exitCode),
    ...(event.cached === true ? { cached: true } : {}),
    ...(found === "" ? {} : { output: found }),
    ...(quoted.length === 0 ? {} : { quoted }),
  };
}

/**
 * `failedTests: adds two numbers, adds zero`: one line per parameter a check extracted. A text
 * param is quoted by its meaningful lines, and left out when it is part of the output beside it.
 */
function describeParams(params: Json | undefined, output: string): string[] {
  return Object.entries(params ?? {}).flatMap(([key, value]) => {
    if (typeof value === "string" && output.includes(value.trim())) return [];
    const items = Array.isArray(value)
      ? value.map(describeItem)
      : typeof value === "string"
        ? [quoteOutput(value, PARAM_LINES)]
        : [describeItem(value)];
    const text = items.filter(Boolean).join(", ");
    return text === "" ? [] : [`${key}: ${text.length > 500 ? `${text.slice(0, 499)}…` : text}`];
  });
}

function describeItem(item: unknown): string {
  if (typeof item === "string") return item.split("\n")[0] ?? "";
  if (typeof item === "number" || typeof item === "boolean") return String(item);
  const named = obj(item);
  return (
    str(named?.name) ??
    str(named?.file) ??
    str(named?.path) ??
    (item == null ? "" : JSON.stringify(item))
  );
}

/** A field's text, or the whole of it from its payload file when the event holds it cut. */
export async function wholeText(
  field: unknown,
  payload: string | undefined,
  runDir: string,
): Promise<string | undefined> {
  // A payload file gone or damaged leaves the event's cut text as what there is.
  const whole =
    payload === undefined ? undefined : await readPayload(runDir, payload).catch(() => undefined);
  return whole ?? str(field);
}
