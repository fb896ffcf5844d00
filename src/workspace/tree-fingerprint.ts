/**
 * A fingerprint of a working tree's content: equal fingerprints mean nothing
 * in the tree changed in between (docs/completion.md#flaky-checks,
 * docs/completion.md#cached-verdicts). In git it covers HEAD, the index (the
 * object of every entry that differs from HEAD), the status (untracked files
 * included) and the content of every file the status lists; ignored files are
 * left out. Outside git it covers every file under the folder but `.git` and
 * `node_modules`.
 */
import { createHash, type Hash } from "node:crypto";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import path from "node:path";
import { type GitRunOptions, readGit, runGit } from "./git.js";
import type { GitRepository } from "./git-repository.js";

/** Folders a tree outside git is read without. */
const SKIPPED_FOLDERS = new Set([".git", "node_modules"]);

/** Adds one named part to the hash, so parts cannot run into each other. */
function addPart(hash: Hash, name: string, content: string | Buffer): void {
  hash.update(`${name}\0${content.length}\0`);
  hash.update(content);
}

/** What is at `file` now: its bytes, its link target, or what kind of thing stands there. */
async function addPath(hash: Hash, root: string, file: string): Promise<void> {
  const absolute = path.join(root, file);
  try {
    const stats = await lstat(absolute);
    if (stats.isSymbolicLink()) addPart(hash, `link:${file}`, await readlink(absolute));
    else if (stats.isFile()) addPart(hash, `file:${file}`, await readFile(absolute));
    else addPart(hash, `other:${file}`, String(stats.mode));
  } catch {
    addPart(hash, `missing:${file}`, "");
  }
}

/** Space-separated fields before the path, by the kind of a porcelain v2 entry. */
const FIELDS_BEFORE_PATH: Readonly<Record<string, number>> = { "1": 8, "2": 9, u: 10, "?": 1 };

/**
 * The paths of a `git status --porcelain=v2 -z` listing, a rename's source
 * included (it is the NUL-separated entry after the rename's).
 */
export function parseStatusV2Paths(status: string): string[] {
  const entries = status.split("\0");
  const files: string[] = [];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] ?? "";
    const fields = FIELDS_BEFORE_PATH[entry.slice(0, entry.indexOf(" "))];
    if (fields === undefined) continue;
    const pathStart = entry.split(" ", fields).join(" ").length + 1;
    files.push(entry.slice(pathStart));
    if (entry.startsWith("2 ")) files.push(entries[++index] ?? "");
  }
  return files.filter((file) => file !== "");
}

/** The `git status` a fingerprint reads: every untracked file, every submodule, HEAD's commit. */
export const FINGERPRINT_STATUS: readonly string[] = [
  "status",
  "--porcelain=v2",
  "-z",
  "--branch",
  "--no-ahead-behind",
  "--untracked-files=all",
  "--ignore-submodules=none",
];

/**
 * HEAD, the index and the working tree in one `git status`: porcelain v2 names
 * the commit HEAD is at and, for every entry that differs, its object in HEAD
 * and in the index; the content of every changed and untracked file is hashed here.
 */
async function addGitTree(hash: Hash, root: string, options: GitRunOptions): Promise<string> {
  const status = await readGit(root, FINGERPRINT_STATUS, options);
  addPart(hash, "status", status);
  for (const file of parseStatusV2Paths(status)) await addPath(hash, root, file);
  return status;
}

/** The commit a porcelain v2 status with `--branch` says HEAD is at; "" before the first commit. */
export function parseStatusV2Head(status: string): string {
  const header = status.split("\0").find((entry) => entry.startsWith("# branch.oid "));
  const commit = header?.slice("# branch.oid ".length) ?? "";
  return /^[0-9a-f]{40,64}$/.test(commit) ? commit : "";
}

/**
 * The fingerprint of the repository's working tree and the commit HEAD names ("" before the
 * first commit), from the one `git status` the fingerprint reads: the two are read together,
 * and no second process is started for HEAD. Throws when git fails.
 */
export async function readTreeAndHead(
  repository: GitRepository,
): Promise<{ readonly fingerprint: string; readonly commit: string }> {
  const hash = createHash("sha256");
  const status = await addGitTree(hash, repository.workTree, { repository });
  return { fingerprint: hash.digest("hex"), commit: parseStatusV2Head(status) };
}

async function holdsGitEntry(folder: string): Promise<boolean> {
  try {
    await lstat(path.join(folder, ".git"));
    return true;
  } catch {
    return false;
  }
}

/**
 * The top of the repository `cwd` is in; undefined outside git. `knownTops` holds folders git
 * named as the top of their own repository: while such a folder still holds its `.git`, git
 * finds the repository there again, so it is asked only once.
 */
async function readGitRoot(
  cwd: string,
  knownTops: Set<string>,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (knownTops.has(cwd) && (await holdsGitEntry(cwd))) return cwd;
  knownTops.delete(cwd);
  const options = signal === undefined ? {} : { signal };
  try {
    const result = await runGit(cwd, ["rev-parse", "--show-toplevel"], {
      ...options,
      allowFailure: true,
    });
    const root = result.stdout.trim();
    if (result.exitCode !== 0 || root === "") return undefined;
    if (root === cwd) knownTops.add(cwd);
    return root;
  } catch {
    return undefined;
  }
}

async function addFolder(hash: Hash, root: string, folder: string): Promise<void> {
  const entries = await readdir(path.join(root, folder), { withFileTypes: true });
  entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  for (const entry of entries) {
    const file = path.join(folder, entry.name);
    if (!entry.isDirectory()) await addPath(hash, root, file);
    else if (!SKIPPED_FOLDERS.has(entry.name)) await addFolder(hash, root, file);
  }
}

/**
 * Reads the fingerprint of the working tree at `cwd` (a hex digest); with `repository`, of that
 * repository's tree, which git is not asked to find. Throws when git fails.
 */
export type TreeFingerprintReader = (
  cwd: string,
  signal?: AbortSignal,
  repository?: GitRepository,
) => Promise<string>;

/**
 * A reader of fingerprints that remembers which folders are the top of their repository, so a
 * loop that fingerprints its tree at every declaration asks git for the top once. Made by a run
 * (its integrity probe) and gone with it: the folders it remembers are the run's few.
 */
export function makeTreeFingerprintReader(): TreeFingerprintReader {
  const knownTops = new Set<string>();
  return async (cwd, signal, repository) => {
    const hash = createHash("sha256");
    const root = repository?.workTree ?? (await readGitRoot(cwd, knownTops, signal));
    if (root === undefined) await addFolder(hash, cwd, "");
    else {
      try {
        await addGitTree(hash, root, { ...(signal === undefined ? {} : { signal }), repository });
      } catch (error) {
        knownTops.delete(cwd);
        throw error;
      }
    }
    return hash.digest("hex");
  };
}

/** The fingerprint of the working tree at `cwd` (a hex digest), git asked afresh for its top. Throws when git fails. */
export function readTreeFingerprint(cwd: string, signal?: AbortSignal): Promise<string> {
  return makeTreeFingerprintReader()(cwd, signal);
}
