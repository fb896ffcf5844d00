/**
 * What a check wrote into the clean room (docs/integrity.md#clean-room): every file of the room
 * git does not ignore, and the room's `.git` and git dir's files, with what lstat says of each,
 * read before the checks and again after them.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { type GitRunOptions, readGit } from "./git.js";

/** The files of closer's own that make the room a worktree: its `.git` and its git dir's. */
const ROOM_GIT_FILES = ["HEAD", "commondir", "gitdir"];

/**
 * Each file of the room by its path (the git dir's relative to the room's folder), with its
 * inode, size, mode, times and link target: a file written and put back differs.
 */
export async function readRoomListing(
  room: { readonly tree: string; readonly gitDir: string },
  options: GitRunOptions,
): Promise<Map<string, string>> {
  const listing = await readGit(
    room.tree,
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    options,
  );
  const entries = new Map<string, string>();
  for (const file of listing.split("\0").filter((file) => file !== "")) {
    entries.set(file, describeEntry(join(room.tree, file)));
  }
  entries.set(".git", describeEntry(join(room.tree, ".git")));
  for (const name of ROOM_GIT_FILES) {
    const file = join(room.gitDir, name);
    entries.set(relative(dirname(room.tree), file), describeEntry(file));
  }
  return entries;
}

/** The paths whose entry changed, appeared or went between two listings, sorted. */
export function changedEntries(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): string[] {
  const changed = new Set<string>();
  for (const [file, entry] of after) if (before.get(file) !== entry) changed.add(file);
  for (const file of before.keys()) if (!after.has(file)) changed.add(file);
  return [...changed].sort();
}

/** Synchronous: ten thousand lstat calls in a row cost milliseconds, awaited one by one far more. */
function describeEntry(file: string): string {
  const stats = lstatSync(file, { throwIfNoEntry: false });
  if (stats === undefined) return "missing";
  const link = stats.isSymbolicLink() ? readlinkSync(file) : "";
  return [stats.ino, stats.size, stats.mode, stats.mtimeMs, stats.ctimeMs, link].join(":");
}
