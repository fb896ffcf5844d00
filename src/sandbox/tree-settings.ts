/**
 * The shell, git and editor settings of the working tree that the sandbox keeps read-only
 * (docs/sandbox.md#tree-settings): the names the sandbox library guards in its own working
 * folder, found by closer in the tree, at its top and a few folders down, as the library
 * finds them. Only those that exist: a missing one would need a stand-in at its place, which
 * the model's tools would see in the tree.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Settings files the library guards, wherever its scan finds them. */
export const GUARDED_FILES = [
  ".gitconfig",
  ".gitmodules",
  ".bashrc",
  ".bash_profile",
  ".zshrc",
  ".zprofile",
  ".profile",
  ".ripgreprc",
  ".mcp.json",
];

/** Settings folders the library guards, as paths of folders. */
export const GUARDED_FOLDERS = [".vscode", ".idea", ".claude/commands", ".claude/agents"];

/** A nested repository's git files that run programs (the tree's own are in git-rules). */
const NESTED_GIT = [".git/hooks", ".git/config"];

/** How deep a guarded file lies at most (the library's default search depth, 3). */
const FILE_DEPTH = 3;
/** How deep the folder holding a guarded folder lies at most (one less than a file's). */
const FOLDER_DEPTH = 1;

function entriesOf(folder: string): { readonly name: string; readonly folder: boolean }[] {
  try {
    return readdirSync(folder, { withFileTypes: true }).map((entry) => ({
      name: entry.name,
      folder: entry.isDirectory(),
    }));
  } catch {
    return [];
  }
}

/** Whether `path` exists as the kind the guard names: its last part's case is ignored, as the library's. */
function existing(folder: string, relativePath: string): string | undefined {
  let at = folder;
  for (const part of relativePath.split("/")) {
    const found = entriesOf(at).find((entry) => entry.name.toLowerCase() === part.toLowerCase());
    if (found === undefined) return undefined;
    at = join(at, found.name);
  }
  return at;
}

/**
 * The guarded settings that exist in the tree at `tree`: every guarded file down to three
 * folders deep, every guarded folder and nested repository's hooks and config in the top folder
 * and the folders just below it. `node_modules` is not searched, as the library does not.
 */
export function treeSettings(tree: string): string[] {
  const found: string[] = [];
  const walk = (folder: string, depth: number) => {
    if (depth <= FOLDER_DEPTH) {
      for (const guarded of depth === 0 ? GUARDED_FOLDERS : [...GUARDED_FOLDERS, ...NESTED_GIT]) {
        const path = existing(folder, guarded);
        if (path !== undefined) found.push(path);
      }
    }
    for (const entry of entriesOf(folder)) {
      const lower = entry.name.toLowerCase();
      if (!entry.folder && GUARDED_FILES.includes(lower)) found.push(join(folder, entry.name));
      if (entry.folder && depth + 1 < FILE_DEPTH && lower !== "node_modules" && lower !== ".git") {
        walk(join(folder, entry.name), depth + 1);
      }
    }
  };
  walk(tree, 0);
  return [...new Set(found)];
}
