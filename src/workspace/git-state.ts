/**
 * The repository's own git configuration as the run found it: the local
 * config files, the hooks folder and `info/` of the common git dir
 * (docs/integrity.md#git-state). The model runs as the same user and can
 * write every one of them; closer keeps their content at the start, finds
 * what changed after each query, and puts it back before its own git runs.
 */
import { createHash } from "node:crypto";
import { chmod, lstat, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";

/** One file as it was: its bytes and permission bits. */
interface KeptFile {
  readonly content: Buffer;
  readonly mode: number;
}

/** The git state of a repository at one moment, by path relative to the common git dir. */
export interface GitStateRecord {
  readonly commonDir: string;
  /** Relative paths of single files (config files); absent ones are not in `files`. */
  readonly singleFiles: readonly string[];
  readonly files: ReadonlyMap<string, KeptFile>;
}

/** How one path of the git state differs from the record. */
export interface GitStateChange {
  readonly path: string;
  readonly how: "changed" | "added" | "removed";
}

/** Folders of the common git dir whose every file is part of the state. */
const KEPT_FOLDERS = ["hooks", "info"] as const;

/**
 * Reads the git state: `config`, `config.worktree`, the run's worktree's
 * `config.worktree` (when `gitDir` is a linked worktree's), `hooks/**`, `info/**`.
 */
export async function recordGitState(
  commonDir: string,
  gitDir = commonDir,
): Promise<GitStateRecord> {
  const singleFiles = ["config", "config.worktree"];
  const worktreeDir = relative(commonDir, gitDir);
  if (worktreeDir !== "" && !worktreeDir.startsWith("..")) {
    singleFiles.push(join(worktreeDir, "config.worktree").split(sep).join("/"));
  }
  return { commonDir, singleFiles, files: await readState(commonDir, singleFiles) };
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
  const now = await readState(record.commonDir, record.singleFiles);
  const changes: GitStateChange[] = [];
  for (const [path, kept] of record.files) {
    const current = now.get(path);
    if (current === undefined) changes.push({ path, how: "removed" });
    else if (current.mode !== kept.mode || !current.content.equals(kept.content)) {
      changes.push({ path, how: "changed" });
    }
  }
  for (const path of now.keys()) {
    if (!record.files.has(path)) changes.push({ path, how: "added" });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Puts every changed path back as the record has it: rewritten, or removed when it was added. */
export async function restoreGitState(
  record: GitStateRecord,
  changes: readonly GitStateChange[],
): Promise<void> {
  for (const change of changes) {
    const target = join(record.commonDir, change.path);
    const kept = record.files.get(change.path);
    await rm(target, { recursive: true, force: true });
    if (kept === undefined) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, kept.content, { mode: kept.mode });
    await chmod(target, kept.mode);
  }
}

async function readState(commonDir: string, singleFiles: readonly string[]) {
  const files = new Map<string, KeptFile>();
  for (const path of singleFiles) await readInto(files, commonDir, path);
  for (const folder of KEPT_FOLDERS) await walk(files, commonDir, folder);
  return files;
}

async function walk(files: Map<string, KeptFile>, commonDir: string, folder: string) {
  const entries = await readdir(join(commonDir, folder), { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) await walk(files, commonDir, path);
    else await readInto(files, commonDir, path);
  }
}

/** A file, or a symlink or other entry kept by what it is (so planting one counts as added). */
async function readInto(files: Map<string, KeptFile>, commonDir: string, path: string) {
  const full = join(commonDir, path);
  const info = await lstat(full).catch(() => undefined);
  if (info === undefined || info.isDirectory()) return;
  const content = info.isFile()
    ? await readFile(full)
    : Buffer.from(`not a file (mode ${info.mode.toString(8)})`);
  files.set(path, { content, mode: info.mode & 0o7777 });
}
