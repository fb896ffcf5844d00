/**
 * The decision file as the recorded run read it (docs/replay.md#replay): the
 * `decision` event keeps it as read before and after each query. The loop
 * reads it once before an iteration's query and once after its answer; the
 * recorded check ids in it are the replayed queries' own, so a file that
 * matched its query still does.
 */
import { isPlainObject } from "../plain-object.js";
import type { FileSnapshot } from "../ports/files.js";
import type { RecordedRun, RedecideCursor } from "./recorded-run.js";

export function makeRecordedDecisionFile(
  recorded: RecordedRun,
  cursor: RedecideCursor,
): (path: string) => Promise<FileSnapshot | undefined> {
  const byIteration = new Map<number, { file: Record<string, unknown>; checkId: string }>();
  for (const event of recorded.events) {
    if (event.type !== "decision" || typeof event.iteration !== "number") continue;
    if (!isPlainObject(event.decisionFile)) continue;
    byIteration.set(event.iteration, {
      file: event.decisionFile,
      checkId: typeof event.checkId === "string" ? event.checkId : "",
    });
  }
  const replayedIds = new Map<string, string>();
  return async () => {
    const after = cursor.answeredUnread;
    cursor.answeredUnread = undefined;
    const iteration = after ?? cursor.iteration + 1;
    const recordedFile = byIteration.get(iteration);
    const read = recordedFile?.file[after === undefined ? "before" : "after"];
    if (recordedFile === undefined || !isPlainObject(read)) return undefined;
    if (after !== undefined && cursor.checkId !== undefined && recordedFile.checkId !== "") {
      replayedIds.set(recordedFile.checkId, cursor.checkId);
    }
    let text = typeof read.text === "string" ? read.text : "";
    for (const [recordedId, replayedId] of replayedIds)
      text = text.replaceAll(recordedId, replayedId);
    return {
      text,
      modifiedAtMs: typeof read.modifiedAtMs === "number" ? read.modifiedAtMs : 0,
      ...(isPlainObject(read.refused)
        ? { refused: read.refused as unknown as NonNullable<FileSnapshot["refused"]> }
        : {}),
    };
  };
}
