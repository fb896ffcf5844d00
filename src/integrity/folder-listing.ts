import { type BigIntStats, type Dirent, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { identityOf, settledIdentity } from "../workspace/file-identity.js";

/** A folder's files as last listed, with the identity of each folder under it then. */
interface FolderListing {
  readonly folders: ReadonlyMap<string, string>;
  readonly files: readonly string[];
}

/**
 * Listings kept by folder. Adding, removing or renaming an entry changes its
 * folder's modification and change time, so a tree whose every folder has
 * the identity it had is listed as it was (docs/integrity.md#file-identity).
 */
export type FolderCache = Map<string, FolderListing>;

/** What a folder that is not there (or not a folder) is kept as. */
const ABSENT = "absent";

/**
 * Every file under `folder` (absolute paths), none from node_modules; nothing
 * when it is missing. With a cache, a tree whose folders did not change is
 * not read again: one `stat` per folder instead of a listing.
 */
export function listFolder(
  folder: string,
  cache: FolderCache = new Map(),
  nowMs = Date.now(),
): string[] {
  const known = cache.get(folder);
  if (known !== undefined && isUnchanged(known)) return [...known.files];
  const listing = { folders: new Map<string, string>(), files: [] as string[] };
  const settled = walk(folder, listing, nowMs);
  if (settled) cache.set(folder, listing);
  else cache.delete(folder);
  return [...listing.files];
}

function isUnchanged(listing: FolderListing): boolean {
  for (const [folder, identity] of listing.folders) {
    if (identityNow(folder) !== identity) return false;
  }
  return true;
}

function identityNow(folder: string): string {
  const stats = statSync(folder, { bigint: true, throwIfNoEntry: false });
  return stats?.isDirectory() ? identityOf(stats) : ABSENT;
}

/** Lists `folder` into `listing`; false when some folder changed too recently to be kept. */
function walk(
  folder: string,
  listing: { folders: Map<string, string>; files: string[] },
  nowMs: number,
): boolean {
  let stats: BigIntStats | undefined;
  let entries: Dirent[];
  try {
    stats = statSync(folder, { bigint: true, throwIfNoEntry: false });
    if (!stats?.isDirectory()) {
      listing.folders.set(folder, ABSENT);
      return true;
    }
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return false; // unreadable: listed as empty, and looked at again next time
  }
  const identity = settledIdentity(stats, nowMs);
  listing.folders.set(folder, identity ?? "");
  let settled = identity !== undefined;
  for (const entry of entries) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") settled = walk(full, listing, nowMs) && settled;
    } else if ((entry.isFile() || entry.isSymbolicLink()) && !isUnderNodeModules(full)) {
      listing.files.push(full);
    }
  }
  return settled;
}

function isUnderNodeModules(file: string): boolean {
  return file.split(path.sep).includes("node_modules");
}
