/**
 * What changed in a working tree since a commit, uncommitted and untracked
 * files included (docs/completion.md#closure-review). Read as the files are:
 * no diff program or textconv the repository names, and a file an attributes
 * file calls binary shown as text unless its content is binary
 * (docs/integrity.md#git-state).
 */
import { lstat, open } from "node:fs/promises";
import path from "node:path";
import type { FileChange, TreeChanges } from "../ports/files.js";
import { type GitRunOptions, isInsideGitRepository, readGit, runGit } from "./git.js";
import { rehashBlobs } from "./git-objects.js";
import type { GitRepository } from "./git-repository.js";

const NO_CHANGES: TreeChanges = { stat: "", files: [] };

/** Quoting off, so paths read as written. */
const PLAIN_PATHS = ["-c", "core.quotePath=false"];

/** A diff of the content itself: no external diff program, no textconv. */
const DIFF = [...PLAIN_PATHS, "diff", "--no-ext-diff", "--no-textconv"];

/** How many bytes git reads to tell a binary file by its content: a NUL among them. */
const BINARY_CHECK_BYTES = 8000;

/** The line git shows instead of a binary file's content. */
const BINARY_LINE = /^Binary files .* differ$/m;

/** The commit HEAD names, or "" outside git or before the first commit. */
export async function readHeadCommit(cwd: string, repository?: GitRepository): Promise<string> {
  try {
    // One git process: `true` or `false` on the first line, HEAD's commit on the next when there is one.
    const answer = await runGit(
      cwd,
      ["rev-parse", "--is-inside-work-tree", "--verify", "--quiet", "HEAD"],
      { allowFailure: true, repository },
    );
    const [inside, head] = answer.stdout.split("\n");
    return answer.exitCode === 0 && inside === "true" ? (head ?? "").trim() : "";
  } catch {
    return "";
  }
}

/** Where a diff is read: the tree's top, the baseline commit and how git is run. */
interface DiffPlace {
  readonly root: string;
  readonly commit: string;
  readonly options: GitRunOptions;
}

/**
 * The tracked changes since `commit` (`git diff <commit>`: committed, staged
 * and unstaged alike) and the untracked files that are not ignored, each as
 * a diff from nothing. Nothing outside git or without a commit.
 */
export async function readChangesSince(
  cwd: string,
  commit: string,
  repository?: GitRepository,
): Promise<TreeChanges> {
  if (commit === "") return NO_CHANGES;
  const root = await readRoot(cwd, repository);
  if (root === undefined) return NO_CHANGES;
  const place: DiffPlace = { root, commit, options: { repository } };
  const tracked = await readGit(root, [...DIFF, "--no-renames", commit], place.options);
  const trackedStat = await readGit(root, [...DIFF, "--stat", commit], place.options);
  const untracked = (
    await readGit(root, ["ls-files", "--others", "--exclude-standard", "-z"], place.options)
  )
    .split("\0")
    .filter((file) => file !== "");
  const trackedFiles: FileChange[] = [];
  for (const file of splitDiff(tracked)) trackedFiles.push(await readAsText(place, file));
  const untrackedFiles: FileChange[] = [];
  for (const file of untracked) {
    untrackedFiles.push({ path: file, diff: await diffFromNothing(place, file) });
  }
  const stat = [trackedStat, ...untracked.map((file) => ` ${file} (untracked)`)].filter(
    (part) => part !== "",
  );
  return { stat: stat.join("\n"), files: [...trackedFiles, ...untrackedFiles] };
}

/**
 * The changes from `commit` to `tree`, a tree object closer's own git wrote of the work
 * (docs/integrity.md#clean-room): objects against objects, so no index entry or work tree file
 * the model shaped is read. Every blob the diff shows is hashed again first: an object file
 * rewritten in place (git never re-hashes a loose object it reads) throws, naming the file.
 */
export async function readChangesBetween(
  cwd: string,
  range: { readonly commit: string; readonly tree: string },
  repository?: GitRepository,
): Promise<TreeChanges> {
  const { commit, tree } = range;
  if (commit === "") return NO_CHANGES;
  const root = await readRoot(cwd, repository);
  if (root === undefined) return NO_CHANGES;
  const options: GitRunOptions = { repository };
  await verifyChangedBlobs(root, range, options);
  const tracked = await readGit(root, [...DIFF, "--no-renames", commit, tree], options);
  const stat = await readGit(root, [...DIFF, "--stat", commit, tree], options);
  const files: FileChange[] = [];
  for (const file of splitDiff(tracked)) {
    if (!BINARY_LINE.test(file.diff)) {
      files.push(file);
      continue;
    }
    // An attributes file (`binary`, `-diff`) must not hide a change: diffed again as text,
    // unless the text holds a NUL (binary content), where git's own line stays.
    const pathspec = `:(literal)${file.path}`;
    const again = await runGit(
      root,
      [...DIFF, "--text", "--no-renames", commit, tree, "--", pathspec],
      {
        ...options,
        allowFailure: true,
      },
    );
    const diff = again.exitCode === 0 ? again.stdout.replace(/\n$/, "") : "";
    files.push(diff === "" || diff.includes("\0") ? file : { path: file.path, diff });
  }
  return { stat, files };
}

/** The blobs of both sides of every file that differs between the commit and the tree, hashed again. */
async function verifyChangedBlobs(
  root: string,
  range: { readonly commit: string; readonly tree: string },
  options: GitRunOptions,
): Promise<void> {
  const raw = await readGit(
    root,
    [
      ...PLAIN_PATHS,
      "diff",
      "--raw",
      "--no-renames",
      "-z",
      "--no-abbrev",
      range.commit,
      range.tree,
    ],
    options,
  );
  const fields = raw.split("\0");
  const blobs = new Map<string, string>();
  for (let index = 0; index + 1 < fields.length; index += 2) {
    // `:<old mode> <new mode> <old id> <new id> <status>`, then the path.
    const [oldMode, newMode, oldId, newId] = (fields[index] ?? "").slice(1).split(" ");
    const file = fields[index + 1] ?? "";
    if (isBlobMode(oldMode) && oldId !== undefined && !/^0+$/.test(oldId)) blobs.set(oldId, file);
    if (isBlobMode(newMode) && newId !== undefined && !/^0+$/.test(newId)) blobs.set(newId, file);
  }
  const rewritten = await findRewrittenObjects(root, [...blobs.keys()], options);
  if (rewritten.length > 0) {
    const files = rewritten.map((id) => `${blobs.get(id)} (${id})`).join(", ");
    throw new Error(`objects of the repository no longer hold what their ids name: ${files}`);
  }
}

function isBlobMode(mode: string | undefined): boolean {
  return mode === "100644" || mode === "100755" || mode === "120000";
}

/** The ids among `ids` whose object's content does not hash to the id. */
async function findRewrittenObjects(
  root: string,
  ids: readonly string[],
  options: GitRunOptions,
): Promise<string[]> {
  const hashes = await rehashBlobs(root, ids, options);
  return ids.filter((id, index) => hashes[index] !== id);
}

/** The top of the tree: the pinned repository's, or the one git finds from `cwd`. */
async function readRoot(cwd: string, repository?: GitRepository): Promise<string | undefined> {
  if (repository !== undefined) return repository.workTree;
  if (!(await isInsideGitRepository(cwd))) return undefined;
  return readGit(cwd, ["rev-parse", "--show-toplevel"]);
}

/**
 * A file git showed as binary, diffed again as text unless its content is binary: an
 * attributes file (`binary`, `-diff`) must not hide a change from the review.
 */
async function readAsText(place: DiffPlace, file: FileChange): Promise<FileChange> {
  if (!BINARY_LINE.test(file.diff)) return file;
  if (await holdsBinaryContent(path.join(place.root, file.path))) return file;
  const pathspec = `:(literal)${file.path}`;
  const again = await runGit(
    place.root,
    [...DIFF, "--text", "--no-renames", place.commit, "--", pathspec],
    { ...place.options, allowFailure: true },
  ).catch(() => undefined);
  const diff = again?.exitCode === 0 ? again.stdout.replace(/\n$/, "") : "";
  // A NUL in the text diff: the file was binary at the commit; git's own line stays.
  return diff === "" || diff.includes("\0") ? file : { path: file.path, diff };
}

async function diffFromNothing(place: DiffPlace, file: string): Promise<string> {
  const text = (await holdsBinaryContent(path.join(place.root, file))) ? [] : ["--text"];
  const result = await runGit(
    place.root,
    [...DIFF, ...text, "--no-index", "--", "/dev/null", file],
    { ...place.options, allowFailure: true },
  );
  return result.stdout.replace(/\n$/, "");
}

/**
 * Whether a file's first bytes hold a NUL, as git tells binary content; a path that is not a
 * regular file counts as binary (nothing to show as text), a missing one as not.
 */
async function holdsBinaryContent(file: string): Promise<boolean> {
  const info = await lstat(file).catch(() => undefined);
  if (info === undefined) return false;
  if (!info.isFile()) return true;
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(BINARY_CHECK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, BINARY_CHECK_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

/** Splits a `git diff --no-renames` into one part per file. */
export function splitDiff(diff: string): FileChange[] {
  const files: FileChange[] = [];
  for (const part of diff.split(/^(?=diff --git )/m)) {
    if (!part.startsWith("diff --git ")) continue;
    const header = part.slice(
      "diff --git ".length,
      part.indexOf("\n") === -1 ? undefined : part.indexOf("\n"),
    );
    files.push({ path: pathOfHeader(header), diff: part.replace(/\n$/, "") });
  }
  return files;
}

/** `a/<path> b/<path>` names the same path twice when renames are off. */
function pathOfHeader(header: string): string {
  const length = (header.length - 5) / 2;
  if (Number.isInteger(length) && length > 0) return header.slice(2, 2 + length);
  return header.replace(/^a\//, "").split(" b/")[0] ?? header;
}
