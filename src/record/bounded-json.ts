import { createHash } from "node:crypto";
import { cutMarker, cutText } from "../bounded-text.js";
import type { Redactor } from "./secret-redactor.js";

/** The longest line events.jsonl ever gets (docs/record.md#bounded-record). */
export const MAX_EVENT_LINE_BYTES = 1024 * 1024;
/** What a payload file keeps of one text at most: head and tail. */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;
/** The smallest cap an event's fields are cut to before the event itself is cut. */
const MIN_FIELD_BYTES = 1024;

/** JSON text of a value, every string redacted, then cut to `maxFieldBytes` (head and tail). */
export function stringifyBounded(
  value: unknown,
  redact: Redactor,
  maxFieldBytes: number,
  indent?: number,
): string {
  return JSON.stringify(
    value,
    (_key, item: unknown) =>
      typeof item === "string" ? cutText(redact(item), maxFieldBytes) : item,
    indent,
  );
}

/** A text too long for its event, to be kept whole (up to MAX_PAYLOAD_BYTES) in a file of its own. */
export interface Payload {
  /** The field it came from (e.g. `stdout`). */
  readonly field: string;
  readonly text: string;
  /** Same text, same hash: one file. */
  readonly hash: string;
}

/**
 * One events.jsonl line for an event: each string redacted and cut to
 * `maxFieldBytes`; a string longer than that is handed to `spill` (which
 * returns the run-folder path it keeps it at) and named in the event's
 * `payloads`. The line never exceeds MAX_EVENT_LINE_BYTES: its fields are cut
 * shorter until it fits, and past that only the event's identity stays.
 */
export function eventLine(
  event: Readonly<Record<string, unknown>>,
  redact: Redactor,
  maxFieldBytes: number,
  spill: (payload: Payload) => string,
): string {
  const payloads: Record<string, string> = {};
  const redacted = new Map<string, string>();
  for (let cap = maxFieldBytes; cap >= MIN_FIELD_BYTES; cap = Math.floor(cap / 4)) {
    const json = JSON.stringify(event, (key, item: unknown) => {
      if (typeof item !== "string") return item;
      const text = redacted.get(item) ?? redact(item);
      if (text.length > MIN_FIELD_BYTES) redacted.set(item, text);
      // A UTF-16 unit is at most 3 UTF-8 bytes: most strings fit without being measured.
      if (text.length * 3 <= cap || Buffer.byteLength(text) <= cap) return text;
      const where = spill({
        field: key,
        text: cutText(text, MAX_PAYLOAD_BYTES),
        hash: hashOf(text),
      });
      payloads[key === "" ? "value" : key] = where;
      return cutText(text, cap, where);
    });
    const line =
      Object.keys(payloads).length === 0
        ? json
        : `${json.slice(0, -1)},"payloads":${JSON.stringify(payloads)}}`;
    if (Buffer.byteLength(line) <= MAX_EVENT_LINE_BYTES) return line;
  }
  const { v, at, runId, type } = event;
  const whole = Buffer.byteLength(JSON.stringify(event));
  return JSON.stringify({ v, at, runId, type, cut: cutMarker(whole), payloads });
}

function hashOf(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}
