import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** An event as events.jsonl holds it. */
export interface RecordedEvent {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** Every event of a run folder's events.jsonl, in order. */
export async function readRecordedEvents<Event extends RecordedEvent = RecordedEvent>(
  runDir: string,
): Promise<Event[]> {
  const text = await readFile(join(runDir, "events.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Event);
}
