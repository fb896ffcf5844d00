/** Reading the JSON that agent CLIs print and that recorded sessions hold. */
import { isPlainObject } from "./plain-object.js";

/** Parse each line of JSON-lines output; lines that are not JSON objects are skipped. */
export function parseJsonLines(text: string): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = [];
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("{")) continue;
    try {
      const value: unknown = JSON.parse(trimmed);
      if (isPlainObject(value)) objects.push(value);
    } catch {
      // A partial line from a killed process: nothing to read.
    }
  }
  return objects;
}

/** The value when it is a finite number, else the fallback. */
export function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

/** The value when it is a string, else the fallback. */
export function stringOr<T>(value: unknown, fallback: T): string | T {
  return typeof value === "string" ? value : fallback;
}
