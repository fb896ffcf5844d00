/**
 * What each iteration changed in the work tree, as a diff between two trees git wrote of it
 * (docs/record.md#diffs): closer's own index, kept in memory between iterations, so the model's
 * index, its flags and its staging hide nothing, and only the files changed since the last tree
 * are read again. Only what git shows is in a tree: the tracked files and the untracked ones it
 * does not ignore, all inside the work tree.
 */
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TreeDiff } from "../ports/loop-ports.js";
import { type GitRunOptions, readGit, runGit } from "./git.js";
import type { GitRepository } from "./git-repository.js";

/** Every stat field counts, whatever the repository says, and no program reads a diff. */
const READ_CONFIG = [
  "core.trustctime=true",
  "core.checkStat=default",
  "core.untrackedCache=false",
  "core.quotePath=false",
];

/** The diff of two trees as the files hold them: no diff program, no textconv, renames off. */
const DIFF_TREES = ["diff-tree", "-r", "-p", "--no-renames", "--no-ext-diff", "--no-textconv"];

/** The trees of a run's iterations, read one after the other. */
export interface TreeDiffReader {
  /** Keeps the tree as it is now, unless one is kept already. */
  keep(): Promise<void>;
  /**
   * The diff from the kept tree to the tree now, which is kept instead: "" when nothing changed,
   * `no-start` when no tree was kept (the first read of a resumed run). `now` is the tree of the
   * work when one was written of it already (the clean room's): none is written then.
   */
  readSinceKept(now?: string): Promise<TreeDiff>;
  /** The tree of the work as it is now, written to be given to `readSinceKept`; none outside git. */
  writeNow(): Promise<string | undefined>;
}

/**
 * A reader for the repository `repository()` names; outside git (no repository) every read is
 * `no-git`. Costs per read: `git add --all`, `git write-tree` and `git diff-tree`
 * (docs/performance.md#loop-costs); with the end's tree given, `git diff-tree` alone. The first
 * tree also costs `git read-tree HEAD`, and its `add` hashes every file once.
 */
export function makeTreeDiffReader(
  repository: () => Promise<GitRepository | undefined>,
): TreeDiffReader {
  // The index's bytes and the time git wrote it: a file changed in the same instant as the
  // index is then still read again (git's racy-clean check compares it with the index's time).
  let index: { readonly bytes: Buffer; readonly writtenAt: Date } | undefined;
  let kept: string | undefined;
  const writeTree = async (found: GitRepository): Promise<string> => {
    const place = await mkdtemp(join(tmpdir(), "i-"));
    const file = join(place, "index");
    try {
      const options: GitRunOptions = {
        repository: found,
        config: READ_CONFIG,
        env: { GIT_INDEX_FILE: file },
      };
      if (index === undefined) {
        // Before the first commit there is no HEAD: the first tree starts from an empty index.
        await runGit(found.workTree, ["read-tree", "HEAD"], { ...options, allowFailure: true });
      } else {
        await writeFile(file, index.bytes);
        await utimes(file, index.writtenAt, index.writtenAt);
      }
      await runGit(found.workTree, ["add", "--all", "--", ":/"], options);
      const tree = await readGit(found.workTree, ["write-tree"], options);
      index = { bytes: await readFile(file), writtenAt: (await stat(file)).mtime };
      return tree;
    } finally {
      await rm(place, { recursive: true, force: true });
    }
  };
  return {
    async keep() {
      if (kept !== undefined) return;
      const found = await repository();
      if (found !== undefined) kept = await writeTree(found);
    },
    async writeNow() {
      const found = await repository();
      return found === undefined ? undefined : writeTree(found);
    },
    async readSinceKept(now) {
      const found = await repository();
      if (found === undefined) return { kind: "no-git" };
      const from = kept;
      const to = now ?? (await writeTree(found));
      kept = to;
      if (from === undefined) return { kind: "no-start" };
      if (from === to) return { kind: "diff", diff: "" };
      const diff = await readGit(found.workTree, [...DIFF_TREES, from, to], {
        repository: found,
        config: READ_CONFIG,
      });
      return { kind: "diff", diff };
    },
  };
}
