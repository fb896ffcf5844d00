/**
 * The read-only places of a run's policy that do not exist yet, made before a sandboxed
 * process starts so the sandbox holds them like any other: an empty folder, or an empty file
 * git reads as no file (docs/sandbox.md#held-whether-or-not). Without them the model could
 * make them itself, and a folder it made first would be its own.
 */
import { lstat, mkdir, rmdir, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { HeldPlace } from "./git-rules.js";

/**
 * Makes each missing place, and the folders on its way; a place that cannot be made is left
 * to the sandbox library, which holds a missing place with a stand-in of its own while a
 * process runs. Returns what it made, each folder before what is in it.
 */
export async function makeHeldPlaces(places: readonly HeldPlace[]): Promise<string[]> {
  const made: string[] = [];
  for (const { path, make } of places) {
    if (make === undefined) continue;
    try {
      const folder = make === "folder" ? path : dirname(path);
      const first = await mkdir(folder, { recursive: true });
      if (first !== undefined) made.push(...foldersFrom(first, folder));
      if (make === "file") {
        await writeFile(path, "", { flag: "wx" });
        made.push(path);
      }
    } catch {
      // there by now, or not ours to make: the library's own stand-in holds it
    }
  }
  return made;
}

/** `first` and every folder below it on the way to `last`. */
function foldersFrom(first: string, last: string): string[] {
  const folders: string[] = [];
  for (let folder = last; folder.length >= first.length; folder = dirname(folder)) {
    folders.unshift(folder);
    if (folder === first) break;
  }
  return folders;
}

/**
 * Removes what closer made outside `keep` (the common git dir), deepest first, each only if it
 * is still an empty folder or file. What it made in the git dir stays: another run of the
 * repository, in this closer or another, may hold it at that moment, and removing a held place
 * lifts that hold; git reads it as nothing there.
 */
export async function removeMadePlaces(made: readonly string[], keep?: string): Promise<void> {
  const removable = made.filter((path) => keep === undefined || !isInside(path, keep));
  for (const path of [...removable].reverse()) {
    try {
      const found = await lstat(path);
      if (found.isDirectory()) await rmdir(path);
      else if (found.isFile() && found.size === 0) await unlink(path);
    } catch {
      // gone already, or no longer empty
    }
  }
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}
