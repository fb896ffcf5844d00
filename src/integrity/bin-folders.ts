import { createHash } from "node:crypto";
import { type Dirent, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";
import { identityOf, settledIdentity } from "../workspace/file-identity.js";

/**
 * The dependency bin folders, relative to the working tree: where `npm test`,
 * `npx`, `yarn`, `pnpm` and an activated virtualenv find a check's programs
 * (docs/integrity.md#protected-paths).
 */
export const DEPENDENCY_BIN_FOLDERS: readonly string[] = Object.freeze([
  "node_modules/.bin",
  ".venv/bin",
  "venv/bin",
]);

/** A bin entry's file larger than this is known by its size, not its content (a native binary). */
const HASHED_BYTES_MAX = 16 * 1024 * 1024;

/** Content hashes kept by file identity, so an unchanged bin is not read again. */
export type BinHashCache = Map<string, { readonly identity: string; readonly hash: string }>;

/**
 * One entry per executable in each bin folder, `<folder> › <name>`: a link's
 * target with the content of the file it reaches, or a file's content. A
 * shim written over a runner (or a new one) changes or adds an entry.
 */
export function fingerprintBinFolders(
  workTree: string,
  folders: readonly string[],
  cache: BinHashCache,
): Record<string, string> {
  const entries: Record<string, string> = {};
  const nowMs = Date.now();
  for (const folder of folders) {
    const absolute = path.resolve(workTree, folder);
    for (const entry of listEntries(absolute)) {
      const hash = hashEntry(path.join(absolute, entry.name), entry, cache, nowMs);
      if (hash !== undefined) entries[`${folder} › ${entry.name}`] = hash;
    }
  }
  return entries;
}

function hashEntry(
  file: string,
  entry: Dirent,
  cache: BinHashCache,
  nowMs: number,
): string | undefined {
  try {
    if (entry.isSymbolicLink()) {
      // The link's target and what it reaches: editing the runner's entry script is a shim too.
      return sha256(`link:${readlinkSync(file)}:${hashReached(file, cache, nowMs) ?? "none"}`);
    }
    return entry.isFile() ? hashReached(file, cache, nowMs) : undefined;
  } catch {
    return undefined;
  }
}

/** The content hash of the regular file a path reaches (links followed); undefined when none. */
function hashReached(file: string, cache: BinHashCache, nowMs: number): string | undefined {
  try {
    const stats = statSync(file, { bigint: true });
    if (!stats.isFile()) return undefined;
    const known = cache.get(file);
    if (known !== undefined && known.identity === identityOf(stats)) return known.hash;
    const hash =
      stats.size > HASHED_BYTES_MAX
        ? sha256(`size:${stats.size}`)
        : sha256(Buffer.concat([Buffer.from(`mode:${stats.mode & 0o111n}:`), readFileSync(file)]));
    const identity = settledIdentity(stats, nowMs);
    if (identity === undefined) cache.delete(file);
    else cache.set(file, { identity, hash });
    return hash;
  } catch {
    return undefined;
  }
}

function listEntries(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  } catch {
    return [];
  }
}

function sha256(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}
