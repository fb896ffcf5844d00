import { isPlainObject } from "../plain-object.js";
import type { BackendResponse } from "../ports/backend.js";

/** What the completion stage reads of a backend response: its structured output and final text. */
export type ResponseContent = Pick<BackendResponse, "structuredOutput" | "text">;

/** A JSON object found in free text, with where it sits. */
export interface JsonObjectInText {
  readonly value: Record<string, unknown>;
  readonly start: number;
  /** Index just past the closing brace. */
  readonly end: number;
}

/**
 * Every outermost JSON object in `text`, in order. A brace that does not open
 * a parseable object (prose such as `use {x}`) is skipped and scanning goes on
 * inside it, so an object nested in prose braces is still found.
 */
export function findJsonObjects(text: string): JsonObjectInText[] {
  const found: JsonObjectInText[] = [];
  let from = 0;
  while (from < text.length) {
    const start = text.indexOf("{", from);
    if (start === -1) break;
    const end = findClosingBrace(text, start);
    const parsed = end === -1 ? undefined : parseObject(text.slice(start, end));
    if (parsed === undefined) {
      from = start + 1;
      continue;
    }
    found.push({ value: parsed, start, end });
    from = end;
  }
  return found;
}

/** The last outermost JSON object in `text` that satisfies `accept` (any object by default). */
export function lastJsonObject(
  text: string,
  accept: (value: Record<string, unknown>) => boolean = () => true,
): Record<string, unknown> | undefined {
  const objects = findJsonObjects(text);
  for (let index = objects.length - 1; index >= 0; index -= 1) {
    const candidate = objects[index];
    if (candidate !== undefined && accept(candidate.value)) return candidate.value;
  }
  return undefined;
}

/**
 * The object a response answered with: its structured output when that is an
 * object, else the last JSON object in its text that `accept` takes.
 */
export function readStructuredObject(
  response: ResponseContent,
  accept?: (value: Record<string, unknown>) => boolean,
): Record<string, unknown> | undefined {
  return isPlainObject(response.structuredOutput)
    ? response.structuredOutput
    : lastJsonObject(response.text, accept);
}

/** Index just past the brace that closes the one at `start`, or -1. Strings are skipped. */
function findClosingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") depth += 1;
    else if (char === "}") {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return -1;
}

function parseObject(candidate: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(candidate);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
