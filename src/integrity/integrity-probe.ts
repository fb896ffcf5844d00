import { resolve } from "node:path";
import { isInsideFolder } from "../definition/inside-path.js";
import type { ProtectedSet } from "../ports/files.js";
import type { IntegrityProbe } from "../ports/loop-ports.js";
import { listChangedFiles } from "../workspace/changed-files.js";
import {
  readChangesBetween,
  readChangesSince,
  readHeadCommit,
} from "../workspace/changes-since.js";
import { getGitDirs } from "../workspace/git.js";
import { readGitRepository } from "../workspace/git-place.js";
import type { GitRepository } from "../workspace/git-repository.js";
import {
  compareGitState,
  fingerprintGitState,
  type GitStateRecord,
  recordGitState,
  restoreGitState,
} from "../workspace/git-state.js";
import { makeTreeDiffReader } from "../workspace/tree-diff.js";
import { makeTreeFingerprintReader, readTreeAndHead } from "../workspace/tree-fingerprint.js";
import { fingerprintProtected, makeProtectedCache } from "./protected-files.js";

/** The integrity guards' view of the working tree (docs/integrity.md). */
export function makeIntegrityProbe(set: ProtectedSet): IntegrityProbe {
  const cache = makeProtectedCache();
  const readTreeFingerprint = makeTreeFingerprintReader();
  // The run's repository, found once before the model's first turn and named to git from then on:
  // a `.git` file or `core.worktree` the model writes later is not followed (docs/integrity.md#git-state).
  let repository: Promise<GitRepository | undefined> | undefined;
  const pinned = () => {
    repository ??= readGitRepository(set.workTree).catch(() => undefined);
    return repository;
  };
  const treeDiffs = makeTreeDiffReader(pinned);
  let gitState: Promise<GitStateRecord | undefined> | undefined;
  const recorded = () => {
    gitState ??= pinned().then((found) => recordGitStateOf(set.workTree, found));
    return gitState;
  };
  return {
    fingerprintProtected: () => fingerprintProtected(set, cache),
    fingerprintDefinition: () =>
      fingerprintProtected({ ...set, globs: [], packageScripts: [], binFolders: [] }, cache),
    isDefinitionPath: (path) =>
      set.folders.some((folder) => isInsideFolder(folder, resolve(set.workTree, path))),
    async listDirtyFiles() {
      try {
        return await listChangedFiles(set.workTree, await pinned());
      } catch {
        return []; // not a git repository: nothing is dirty in git's sense
      }
    },
    readHeadCommit: async () => readHeadCommit(set.workTree, await pinned()),
    readChangesSince: async (commit, tree) =>
      tree === undefined
        ? readChangesSince(set.workTree, commit, await pinned())
        : readChangesBetween(set.workTree, { commit, tree }, await pinned()),
    keepTree: () => treeDiffs.keep(),
    readDiffSinceKept: (tree) => treeDiffs.readSinceKept(tree),
    writeWorkTree: () => treeDiffs.writeNow(),
    readTreeFingerprint: async () => readTreeFingerprint(set.workTree, undefined, await pinned()),
    async readHeadAndTree() {
      const found = await pinned();
      if (found === undefined) return { commit: await readHeadCommit(set.workTree) };
      const { commit, fingerprint } = await readTreeAndHead(found);
      return { commit, tree: fingerprint };
    },
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

/** The git state of the repository `cwd` is in (the pinned one, when there is one); none outside git. */
async function recordGitStateOf(
  cwd: string,
  repository: GitRepository | undefined,
): Promise<GitStateRecord | undefined> {
  const [gitDir, commonDir] =
    repository === undefined ? await getGitDirs(cwd) : [repository.gitDir, repository.commonDir];
  if (gitDir === undefined) return undefined;
  return recordGitState(commonDir ?? gitDir, gitDir);
}
