import { resolve } from "node:path";
import { isInsideFolder } from "../definition/inside-path.js";
import type { IntegrityProbe } from "../ports.js";
import { readChangesSince, readHeadCommit } from "../workspace/changes-since.js";
import { listChangedFiles } from "../workspace/git.js";
import { readTreeFingerprint } from "../workspace/tree-fingerprint.js";
import { fingerprintProtected, type HashCache, type ProtectedSet } from "./protected-files.js";

/** The integrity guards' view of the working tree (docs/integrity.md). */
export function makeIntegrityProbe(set: ProtectedSet): IntegrityProbe {
  const cache: HashCache = new Map();
  return {
    fingerprintProtected: () => fingerprintProtected(set, cache),
    fingerprintDefinition: () =>
      fingerprintProtected({ ...set, globs: [], packageScripts: [] }, cache),
    isDefinitionPath: (path) =>
      set.folders.some((folder) => isInsideFolder(folder, resolve(set.cwd, path))),
    async listDirtyFiles() {
      try {
        return await listChangedFiles(set.cwd);
      } catch {
        return []; // not a git repository: nothing is dirty in git's sense
      }
    },
    readHeadCommit: () => readHeadCommit(set.cwd),
    readChangesSince: (commit) => readChangesSince(set.cwd, commit),
    readTreeFingerprint: () => readTreeFingerprint(set.cwd),
  };
}
