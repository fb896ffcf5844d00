/**
 * The integrity probe of a replay (docs/replay.md#replay): the tree as the
 * record saw it, unchanged since the baseline but for what a recorded guard
 * found at that iteration.
 */

import { isPlainObject } from "../plain-object.js";
import type { Baseline } from "../ports/baseline.js";
import type { IntegrityProbe } from "../ports/loop-ports.js";
import { num, strings } from "../record/loose-json.js";
import type { RecordedRun, RedecideCursor } from "./recorded-run.js";

/** The tree as the record saw it: unchanged since the baseline, but for what a guard found. */
export function makeRecordedProbe(recorded: RecordedRun, cursor: RedecideCursor): IntegrityProbe {
  const baseline: Partial<Baseline> = recorded.baseline ?? {};
  const guards = recorded.events.filter((event) => event.type === "guard" && event.valid === false);
  const gitChanges = new Map<number, string[][]>();
  for (const event of guards) {
    if (event.guard !== "git-config-changed") continue;
    const list = gitChanges.get(num(event.iteration) ?? 0) ?? [];
    list.push(strings(isPlainObject(event.params) ? event.params.gitPaths : undefined) ?? []);
    gitChanges.set(num(event.iteration) ?? 0, list);
  }
  return {
    async fingerprintProtected() {
      const fingerprint: Record<string, string> = { ...baseline.protectedFiles };
      const found = guards.find(
        (event) => event.guard === "protected-changed" && event.iteration === cursor.iteration,
      );
      const paths = strings(isPlainObject(found?.params) ? found.params.protectedPaths : []) ?? [];
      for (const entry of paths) {
        const match = /^(.*) \((changed|added|removed)\)$/.exec(entry);
        if (match?.[1] === undefined) continue;
        if (match[2] === "removed") delete fingerprint[match[1]];
        else fingerprint[match[1]] = `replayed-${match[2]}`;
      }
      return fingerprint;
    },
    fingerprintDefinition: async () => ({}),
    isDefinitionPath: () => false,
    listDirtyFiles: async () => baseline.dirtyFiles ?? [],
    readHeadCommit: async () => baseline.commit ?? "",
    readChangesSince: async () => ({ stat: "", files: [] }),
    readTreeFingerprint: async () => `iteration-${cursor.iteration}`,
    recordGitState: async () => baseline.gitState ?? {},
    restoreGitState: async () => gitChanges.get(cursor.iteration)?.shift() ?? [],
  };
}
