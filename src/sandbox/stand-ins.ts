/**
 * The sandbox library guards shell, git and editor settings in its own working
 * folder, and where one is absent it holds an empty, read-only stand-in at its
 * place while a sandboxed process runs. The library now works from a folder of
 * its own (docs/sandbox.md#library-host), so no stand-in is made in a tree;
 * a closer of an earlier version, killed while a sandboxed process ran in the
 * project folder, may have left some there, which the resume removes.
 */
import { existsSync } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { readGit } from "../workspace/git.js";
import { GUARDED_FILES, GUARDED_FOLDERS } from "./tree-settings.js";

/** What the library guards in its working folder: the files, and the folders' top names (`.claude`). */
const GUARDED_NAMES = [
  ...GUARDED_FILES,
  ...new Set(GUARDED_FOLDERS.map((folder) => folder.split("/")[0] ?? folder)),
];

function isInside(path: string, place: string): boolean {
  const rest = relative(place, path);
  return rest === "" || (!rest.startsWith("..") && !rest.startsWith("/"));
}

/**
 * Removes the stand-ins a closer killed while a sandboxed process ran left in the tree (the
 * library removes them when the process ends, or when closer exits): the guarded names in the
 * working folder that are still empty and that git does not track. For the resume of a run whose
 * closer ended without ending it; returns the tree-relative paths removed.
 */
export async function removeLeftStandIns(
  tree: string,
  cwd: string = process.cwd(),
): Promise<string[]> {
  if (!isInside(cwd, tree)) return [];
  const present = GUARDED_NAMES.map((name) => join(cwd, name)).filter((path) => existsSync(path));
  if (present.length === 0) return [];
  const paths = present.map((path) => relative(tree, path));
  const tracked = await readGit(tree, ["ls-files", "-z", "--", ...paths], {
    allowFailure: true,
  }).catch(() => "");
  const trackedPaths = new Set(tracked.split("\0"));
  const removed: string[] = [];
  for (const path of paths) {
    if (trackedPaths.has(path) || !(await isEmpty(join(tree, path)))) continue;
    await rm(join(tree, path), { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}

async function isEmpty(path: string): Promise<boolean> {
  try {
    const found = await stat(path);
    if (found.isFile()) return found.size === 0;
    return found.isDirectory() && (await readdir(path)).length === 0;
  } catch {
    return false;
  }
}
