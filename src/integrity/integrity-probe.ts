import { resolve } from "node:path";
import { isInsideFolder } from "../definition/inside-path.js";
import type { ProtectedSet } from "../ports/files.js";
import type { IntegrityProbe } from "../ports/loop-ports.js";
import { readChangesSince, readHeadCommit } from "../workspace/changes-since.js";
import { getGitDirs, listChangedFiles } from "../workspace/git.js";
import {
  compareGitState,
  fingerprintGitState,
  type GitStateRecord,
  recordGitState,
  restoreGitState,
} from "../workspace/git-state.js";
import { makeTreeFingerprintReader } from "../workspace/tree-fingerprint.js";
import { fingerprintProtected, makeProtectedCache } from "./protected-files.js";

/** The integrity guards' view of the working tree (docs/integrity.md). */
export function makeIntegrityProbe(set: ProtectedSet): IntegrityProbe {
  const cache = makeProtectedCache();
  const readTreeFingerprint = makeTreeFingerprintReader();
  let gitState: Promise<GitStateRecord | undefined> | undefined;
  const recorded = () => {
    gitState ??= recordGitStateOf(set.workTree);
    return gitState;
  };
  return {
    fingerprintProtected: () => fingerprintProtected(set, cache),
    fingerprintDefinition: () =>
      fingerprintProtected({ ...set, globs: [], packageScripts: [] }, cache),
    isDefinitionPath: (path) =>
      set.folders.some((folder) => isInsideFolder(folder, resolve(set.workTree, path))),
    async listDirtyFiles() {
      try {
        return await listChangedFiles(set.workTree);
      } catch {
        return []; // not a git repository: nothing is dirty in git's sense
      }
    },
    readHeadCommit: () => readHeadCommit(set.workTree),
    readChangesSince: (commit) => readChangesSince(set.workTree, commit),
    readTreeFingerprint: () => readTreeFingerprint(set.workTree),
    async recordGitState() {
      const record = await recorded();
      return record === undefined ? {} : fingerprintGitState(record);
    },
    async restoreGitState() {
      const record = await recorded();
      if (record === undefined) return [];
      const changes = await compareGitState(record);
      if (changes.length === 0) return [];
      await restoreGitState(record, changes);
      return changes.map((change) => `${change.path} (${change.how})`);
    },
  };
}

/** The git state of the repository `cwd` is in; none outside git. */
async function recordGitStateOf(cwd: string): Promise<GitStateRecord | undefined> {
  const [gitDir, commonDir] = await getGitDirs(cwd);
  if (gitDir === undefined) return undefined;
  return recordGitState(commonDir ?? gitDir, gitDir);
}
