/**
 * The repository's own git configuration as the run found it: the local
 * config files, the hooks folder and `info/` of the common git dir, and the
 * files that say where the repository's parts are and how its objects read
 * (docs/integrity.md#git-state). The model runs as the same user and can
 * write every one of them; closer keeps their content at the start, finds
 * what changed after each query and each check phase, and puts it back
 * before its own git runs.
 */
import { createHash } from "node:crypto";
import { type Dirent, lstatSync, readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { identityOf, settledIdentity } from "./file-identity.js";
import { replacementRefsOf, withKeptReplacementRefs } from "./packed-refs.js";

/** One file as it was: its bytes and permission bits. */
interface KeptFile {
  readonly content: Buffer;
  readonly mode: number;
}

/**
 * The files as last read, each with its identity (device, inode, size,
 * modification and change time): a file whose identity is the same later
 * has the same content, and is not read again (docs/integrity.md#file-identity).
 * Only files that had settled when they were read are kept.
 */
interface ReadCache {
  readonly files: Map<string, KeptFile & { readonly identity: string }>;
  /** The clock the settling is measured by (milliseconds since the epoch). */
  readonly now: () => number;
}

/** The git state of a repository at one moment, by path relative to the common git dir. */
export interface GitStateRecord {
  readonly commonDir: string;
  /** Relative paths of single files (config files); absent ones are not in `files`. */
  readonly singleFiles: readonly string[];
  readonly files: ReadonlyMap<string, KeptFile>;
  /** What later reads of the state need not read again. */
  readonly reads: ReadCache;
}

/** How one path of the git state differs from the record. */
export interface GitStateChange {
  readonly path: string;
  readonly how: "changed" | "added" | "removed";
}

/** Folders of the common git dir whose every file is part of the state. */
const KEPT_FOLDERS = ["hooks", "info", "refs/replace"] as const;

/**
 * Files of the common git dir that say where the repository's parts are, or
 * how its objects and history read: the git dir (`commondir`), other object
 * stores (`alternates`), the history cut short (`shallow`), and the
 * replacement refs among the packed refs.
 */
const LAYOUT_FILES = ["commondir", "packed-refs", "shallow", "objects/info/alternates"] as const;

/** Files of a linked worktree's own git dir that are part of the state. */
const WORKTREE_FILES = ["config.worktree", "commondir", "gitdir"] as const;

/** The packed refs: only their replacement refs are compared (see packed-refs.ts). */
const PACKED_REFS = "packed-refs";

/** The shared config file, whose branch sections git itself writes (see `splitBranchSections`). */
const SHARED_CONFIG = "config";

/** A section header alone on its line: `[branch "name"]`. */
const BRANCH_HEADER = /^\s*\[branch\s+"(?:[^"\\]|\\.)*"\]\s*$/;
/** Any line that starts a section, alone or followed by more. */
const ANY_HEADER = /^\s*\[/;

/**
 * The shared config without its `[branch "…"]` sections, and those sections.
 * Git writes them for closer and for the runs beside it (a push's upstream,
 * a deleted branch), and no key of a branch section runs a program, so they
 * are not part of the state compared. A header with anything after it on its
 * line (`[branch "x"] [include]`) does not count as a branch section.
 */
export function splitBranchSections(text: string): { rest: string; branches: string } {
  const rest: string[] = [];
  const branches: string[] = [];
  let inBranch = false;
  for (const line of text.split("\n")) {
    if (ANY_HEADER.test(line)) inBranch = BRANCH_HEADER.test(line);
    (inBranch ? branches : rest).push(line);
  }
  const joined = (lines: string[]) => lines.join("\n").replace(/\n+$/, "");
  return { rest: joined(rest), branches: joined(branches) };
}

/**
 * Whether a file now is the file the record has (for the shared config: outside its branch
 * sections; for the packed refs: their replacement refs, a missing file holding none).
 */
function sameFile(path: string, kept: KeptFile | undefined, current: KeptFile | undefined) {
  if (path === PACKED_REFS) {
    return replacementRefsOf(kept?.content) === replacementRefsOf(current?.content);
  }
  if (kept === undefined || current === undefined) return kept === current;
  if (current.mode !== kept.mode) return false;
  if (path !== SHARED_CONFIG) return current.content.equals(kept.content);
  const before = splitBranchSections(kept.content.toString("utf8")).rest;
  return before === splitBranchSections(current.content.toString("utf8")).rest;
}

/**
 * What a restored file holds: the record's, with the shared config's branch sections as they
 * are now; the packed refs as they are now with the recorded replacement refs. Undefined: none.
 */
function restoredFile(
  path: string,
  kept: KeptFile | undefined,
  current: KeptFile | undefined,
): KeptFile | undefined {
  if (path === PACKED_REFS) {
    const mode = current?.mode ?? kept?.mode ?? 0o644;
    return { content: withKeptReplacementRefs(current?.content, kept?.content), mode };
  }
  if (kept === undefined) return undefined;
  if (path !== SHARED_CONFIG || current === undefined) return kept;
  const { rest } = splitBranchSections(kept.content.toString("utf8"));
  const { branches } = splitBranchSections(current.content.toString("utf8"));
  if (branches === "") return kept;
  return { content: Buffer.from(`${rest}\n${branches}\n`), mode: kept.mode };
}

/**
 * Reads the git state: `config`, `config.worktree`, the layout files, the run's
 * worktree's `config.worktree`, `commondir` and `gitdir` (when `gitDir` is a
 * linked worktree's), `hooks/**`, `info/**`, `refs/replace/**`.
 */
export async function recordGitState(
  commonDir: string,
  gitDir = commonDir,
  now: () => number = Date.now,
): Promise<GitStateRecord> {
  // `commondir` says where the git dir is: one the model wrote would point closer's git at a config of its own.
  const singleFiles: string[] = ["config", "config.worktree", ...LAYOUT_FILES];
  const worktreeDir = relative(commonDir, gitDir);
  if (worktreeDir !== "" && !worktreeDir.startsWith("..")) {
    for (const name of WORKTREE_FILES) {
      singleFiles.push(join(worktreeDir, name).split(sep).join("/"));
    }
  }
  const reads: ReadCache = { files: new Map(), now };
  return { commonDir, singleFiles, files: readState(commonDir, singleFiles, reads), reads };
}

/** The record's files with their sha256 (12 hex), for run.json. */
export function fingerprintGitState(record: GitStateRecord): Record<string, string> {
  const fingerprint: Record<string, string> = {};
  for (const [path, file] of [...record.files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    fingerprint[path] = createHash("sha256").update(file.content).digest("hex").slice(0, 12);
  }
  return fingerprint;
}

/** What differs now from the record (a changed permission counts as changed). */
export async function compareGitState(record: GitStateRecord): Promise<GitStateChange[]> {
  const now = readState(record.commonDir, record.singleFiles, record.reads);
  const changes: GitStateChange[] = [];
  for (const path of new Set([...record.files.keys(), ...now.keys()])) {
    const kept = record.files.get(path);
    const current = now.get(path);
    if (sameFile(path, kept, current)) continue;
    const how = kept === undefined ? "added" : current === undefined ? "removed" : "changed";
    changes.push({ path, how });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Puts every changed path back as the record has it: rewritten, or removed when it was added
 * (the packed refs are rewritten with the recorded replacement refs, never removed).
 */
export async function restoreGitState(
  record: GitStateRecord,
  changes: readonly GitStateChange[],
): Promise<void> {
  const now = readState(record.commonDir, record.singleFiles, record.reads);
  for (const change of changes) {
    const target = join(record.commonDir, change.path);
    const restored = restoredFile(change.path, record.files.get(change.path), now.get(change.path));
    await rm(target, { recursive: true, force: true });
    if (restored === undefined) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, restored.content, { mode: restored.mode });
    await chmod(target, restored.mode);
  }
}

/**
 * Reads the files synchronously: a handful of small files after every query,
 * where the thread pool's round trips would cost more than the reads. A file
 * whose identity is the one it had when last read is not read again.
 */
function readState(
  commonDir: string,
  singleFiles: readonly string[],
  cache: ReadCache,
): Map<string, KeptFile> {
  const reader: StateReader = { commonDir, cache, files: new Map(), nowMs: cache.now() };
  for (const path of singleFiles) {
    readInto(reader, path);
    if (isEmptyWorktreeConfig(path, reader.files.get(path))) reader.files.delete(path);
  }
  for (const folder of KEPT_FOLDERS) walk(reader, folder);
  return reader.files;
}

interface StateReader {
  readonly commonDir: string;
  readonly cache: ReadCache;
  readonly files: Map<string, KeptFile>;
  readonly nowMs: number;
}

/**
 * An empty `config.worktree` sets nothing, so it is the same state as none: the
 * OS sandbox holds one where the file is missing, to keep the model from
 * creating it (docs/integrity.md#git-state).
 */
function isEmptyWorktreeConfig(path: string, file: KeptFile | undefined): boolean {
  return file !== undefined && file.content.length === 0 && path.endsWith("config.worktree");
}

/**
 * Files git itself writes in a kept folder, which nothing local reads: `info/refs`, the list of
 * refs `git update-server-info` writes for dumb HTTP clients after every repack (`git gc`).
 */
const WRITTEN_BY_GIT = new Set(["info/refs"]);

function walk(reader: StateReader, folder: string): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(reader.commonDir, folder), { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) walk(reader, path);
    else if (!WRITTEN_BY_GIT.has(path)) readInto(reader, path);
  }
}

/** A file, or a symlink or other entry kept by what it is (so planting one counts as added). */
function readInto(reader: StateReader, path: string): void {
  const full = join(reader.commonDir, path);
  const info = lstatSync(full, { bigint: true, throwIfNoEntry: false });
  if (info === undefined || info.isDirectory()) return;
  const cached = reader.cache.files.get(path);
  if (cached !== undefined && cached.identity === identityOf(info)) {
    reader.files.set(path, cached);
    return;
  }
  const content = info.isFile()
    ? readFileSync(full)
    : Buffer.from(`not a file (mode ${info.mode.toString(8)})`);
  const file = { content, mode: Number(info.mode) & 0o7777 };
  reader.files.set(path, file);
  const identity = settledIdentity(info, reader.nowMs);
  if (identity === undefined) reader.cache.files.delete(path);
  else reader.cache.files.set(path, { ...file, identity });
}
