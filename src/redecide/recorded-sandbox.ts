/**
 * The OS sandbox of a replay (docs/replay.md#replay): nothing runs in it; after
 * each query it reports what the record says the sandbox refused the model's
 * processes during that query.
 */
import { tmpdir } from "node:os";
import { isPlainObject } from "../plain-object.js";
import type { SandboxPort } from "../ports/loop-ports.js";
import { strings } from "../record/loose-json.js";
import type { RecordedEvent, RedecideCursor } from "./recorded-run.js";

export function makeRecordedSandbox(cursor: RedecideCursor): SandboxPort {
  return {
    enter: async () => ({ wrapper: (launch) => launch, tempDir: tmpdir(), leave: async () => {} }),
    async takeRefusals(kind) {
      if (kind !== "backend") return [];
      const refusals = cursor.refusals ?? [];
      cursor.refusals = undefined;
      return [...refusals];
    },
  };
}

/** The backend's refusals recorded after the query that ended at `index`, before the next one. */
export function refusalsAfter(events: readonly RecordedEvent[], index: number): string[] {
  const refusals: string[] = [];
  for (const event of events.slice(index + 1)) {
    if (event.type === "backend-start" || event.type === "run-start") break;
    if (event.type !== "sandbox-refused" || event.kind !== "backend") continue;
    refusals.push(...(strings(isPlainObject(event) ? event.refusals : undefined) ?? []));
  }
  return refusals;
}
