/**
 * A fingerprint of a working tree's content: equal fingerprints mean nothing
 * in the tree changed in between (docs/completion.md#flaky-checks). In git
 * it covers HEAD, the status (untracked files included), the diff against
 * HEAD and the content of every file the status lists; ignored files are left
 * out. Outside git it covers every file under the folder but `.git` and
 * `node_modules`.
 */
import { createHash, type Hash } from "node:crypto";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import path from "node:path";
import { isInsideGitRepository, parseStatusPaths, readGit, runGit } from "./git.js";

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

async function addGitTree(hash: Hash, cwd: string, signal?: AbortSignal): Promise<void> {
  const options = signal === undefined ? {} : { signal };
  const root = await readGit(cwd, ["rev-parse", "--show-toplevel"], options);
  const head = await runGit(root, ["rev-parse", "--verify", "--quiet", "HEAD"], {
    ...options,
    allowFailure: true,
  });
  addPart(hash, "head", head.stdout.trim());
  const status = await readGit(
    root,
    ["status", "--porcelain=v1", "-z", "--untracked-files=all"],
    options,
  );
  addPart(hash, "status", status);
  if (head.exitCode === 0) {
    const diff = await readGit(root, ["diff", "HEAD", "--binary", "--no-ext-diff"], options);
    addPart(hash, "diff", diff);
  }
  for (const file of parseStatusPaths(status, { sources: true })) await addPath(hash, root, file);
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

/** The fingerprint of the working tree at `cwd` (a hex digest). Throws when git fails. */
export async function readTreeFingerprint(cwd: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash("sha256");
  if (await isInsideGitRepository(cwd)) await addGitTree(hash, cwd, signal);
  else await addFolder(hash, cwd, "");
  return hash.digest("hex");
}
