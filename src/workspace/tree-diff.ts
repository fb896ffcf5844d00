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
import { runCommand } from "../process/shell-command.js";
import {
  GIT_TIMEOUT_MS,
  type GitRunOptions,
  gitEnvironment,
  PINNED_CONFIG,
  readGit,
  runGit,
} from "./git.js";
import { type GitRepository, repositoryVariables } from "./git-repository.js";

/** Every stat field counts, whatever the repository says, and no program reads a diff. */
const READ_CONFIG = [
  "core.trustctime=true",
  "core.checkStat=default",
  "core.untrackedCache=false",
  "core.quotePath=false",
];

/** The diff of two trees as the files hold them: no diff program, no textconv, renames off. */
const DIFF_TREES = ["diff-tree", "-r", "-p", "--no-renames", "--no-ext-diff", "--no-textconv"];

/**
 * A later tree and its diff in one process: the shell runs `git add`, `git write-tree` and, when
 * the tree differs from the last (`$1`), `git diff-tree`, each with closer's settings (the other
 * arguments); it prints the tree's id, then the diff. One process for closer to start, not three.
 */
const TREE_AND_DIFF = [
  'from=$1; shift; git "$@" add --all -- :/ || exit',
  'tree=$(git "$@" write-tree) || exit',
  "printf '%s\\n' \"$tree\"",
  `[ "$tree" = "$from" ] || exec git "$@" ${DIFF_TREES.join(" ")} "$from" "$tree"`,
].join("\n");

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
}

/**
 * A reader for the repository `repository()` names; outside git (no repository) every read is
 * `no-git`. Costs per read: one process, a shell that runs `git add --all`, `git write-tree` and
 * `git diff-tree` (docs/performance.md#loop-costs); with the end's tree given, `git diff-tree`
 * alone. The first tree costs `git read-tree HEAD`, `add` and `write-tree`, and its `add` hashes
 * every file once.
 */
export function makeTreeDiffReader(
  repository: () => Promise<GitRepository | undefined>,
): TreeDiffReader {
  // The index's bytes and the time git wrote it: a file changed in the same instant as the
  // index is then still read again (git's racy-clean check compares it with the index's time).
  let index: { readonly bytes: Buffer; readonly writtenAt: Date } | undefined;
  let kept: string | undefined;
  /** Runs `work` on closer's own index file, as the last tree left it; keeps what it leaves. */
  const withOwnIndex = async <T>(work: (file: string) => Promise<T>): Promise<T> => {
    const place = await mkdtemp(join(tmpdir(), "i-"));
    const file = join(place, "index");
    try {
      if (index !== undefined) {
        await writeFile(file, index.bytes);
        await utimes(file, index.writtenAt, index.writtenAt);
      }
      const result = await work(file);
      index = { bytes: await readFile(file), writtenAt: (await stat(file)).mtime };
      return result;
    } finally {
      await rm(place, { recursive: true, force: true });
    }
  };
  const writeTree = (found: GitRepository): Promise<string> =>
    withOwnIndex(async (file) => {
      const options: GitRunOptions = {
        repository: found,
        config: READ_CONFIG,
        env: { GIT_INDEX_FILE: file },
      };
      if (index === undefined) {
        // Before the first commit there is no HEAD: the first tree starts from an empty index.
        await runGit(found.workTree, ["read-tree", "HEAD"], { ...options, allowFailure: true });
      }
      await runGit(found.workTree, ["add", "--all", "--", ":/"], options);
      return readGit(found.workTree, ["write-tree"], options);
    });
  const writeTreeAndDiff = (found: GitRepository, from: string) =>
    withOwnIndex((file) => readTreeAndDiff(found, { from, index: file }));
  return {
    async keep() {
      if (kept !== undefined) return;
      const found = await repository();
      if (found !== undefined) kept = await writeTree(found);
    },
    async readSinceKept(now) {
      const found = await repository();
      if (found === undefined) return { kind: "no-git" };
      const from = kept;
      if (from !== undefined && index !== undefined && now === undefined) {
        const read = await writeTreeAndDiff(found, from);
        kept = read.tree;
        return { kind: "diff", diff: read.diff };
      }
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

/** The work's tree, written with the index file given, and its diff from `from`: one process. */
async function readTreeAndDiff(
  found: GitRepository,
  place: { readonly from: string; readonly index: string },
): Promise<{ readonly tree: string; readonly diff: string }> {
  const config = [...PINNED_CONFIG, ...READ_CONFIG].flatMap((entry) => ["-c", entry]);
  const result = await runCommand({
    command: ["/bin/sh", "-c", TREE_AND_DIFF, "sh", place.from, ...config],
    cwd: found.workTree,
    env: gitEnvironment({ ...repositoryVariables(found), GIT_INDEX_FILE: place.index }),
    inheritEnv: false,
    timeoutMs: GIT_TIMEOUT_MS,
  });
  const lineEnd = result.stdout.indexOf("\n");
  if (result.exitCode !== 0 || result.timedOut || result.aborted || lineEnd < 0) {
    const why = result.stderr.trim().split("\n")[0] ?? "";
    throw new Error(`git could not write the tree or its diff (exit ${result.exitCode}): ${why}`);
  }
  return {
    tree: result.stdout.slice(0, lineEnd),
    diff: result.stdout.slice(lineEnd + 1).replace(/\n$/, ""),
  };
}
