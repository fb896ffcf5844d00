/** The files of a working tree with uncommitted changes, as `git status` lists them. */

import { readGit } from "./git.js";
import type { GitRepository } from "./git-repository.js";

/** Paths with uncommitted changes, tracked or untracked, relative to the worktree root. */
export async function listChangedFiles(cwd: string, repository?: GitRepository): Promise<string[]> {
  const status = await readGit(cwd, ["status", "--porcelain", "-z", "--untracked-files=all"], {
    repository,
  });
  return parseStatusPaths(status, { sources: false });
}

/**
 * The paths of a `git status --porcelain -z` listing. A rename or copy is
 * followed by its source path: listed too with `sources`, else skipped.
 */
export function parseStatusPaths(status: string, options: { readonly sources: boolean }): string[] {
  const entries = status.split("\0");
  const files: string[] = [];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] ?? "";
    if (entry.length < 4) continue;
    files.push(entry.slice(3));
    if (entry[0] === "R" || entry[0] === "C") {
      const source = entries[++index] ?? "";
      if (options.sources && source !== "") files.push(source);
    }
  }
  return files;
}
