/**
 * The sandbox library guards shell, git and editor settings in closer's own
 * working folder (`process.cwd()`), and where one is absent it holds an empty,
 * read-only stand-in at its place while a sandboxed process runs. When that
 * folder is in the tree (a run without a worktree, started from the project),
 * git inside the sandbox would list the stand-ins as untracked files: a
 * `git status` check would fail on them and `git add -A` would trip over them.
 * Git in the sandbox is given an excludes file that hides exactly these, and
 * keeps the user's own excludes (docs/sandbox.md#how-it-runs).
 */
import { existsSync } from "node:fs";
import { readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { readGit } from "../workspace/git.js";

/** What the library guards in its working folder; `.claude` stands for `.claude/commands` and `.claude/agents`. */
const GUARDED_NAMES = [
  ".gitconfig",
  ".gitmodules",
  ".bashrc",
  ".bash_profile",
  ".zshrc",
  ".zprofile",
  ".profile",
  ".ripgreprc",
  ".mcp.json",
  ".vscode",
  ".idea",
  ".claude",
];

function isInside(path: string, place: string): boolean {
  const rest = relative(place, path);
  return rest === "" || (!rest.startsWith("..") && !rest.startsWith("/"));
}

/** The stand-ins a sandboxed process will see in the tree: tree-relative paths, none when the working folder is outside it. */
export function standInsIn(tree: string, cwd: string = process.cwd()): string[] {
  if (!isInside(cwd, tree)) return [];
  return GUARDED_NAMES.map((name) => join(cwd, name))
    .filter((path) => !existsSync(path))
    .map((path) => relative(tree, path));
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

/** The user's own global excludes, which an excludes file of closer's replaces for git: kept in it. */
export async function readUserExcludes(tree: string): Promise<string> {
  const configured = await readGit(tree, ["config", "--path", "--get", "core.excludesFile"], {
    allowFailure: true,
  }).catch(() => "");
  const xdg = process.env.XDG_CONFIG_HOME ?? join(homedir(), ".config");
  const file = configured === "" ? join(xdg, "git", "ignore") : configured;
  return await readFile(file, "utf8").catch(() => "");
}

/**
 * Writes the excludes file for the stand-ins to `file` and returns the variables that give
 * it to git; none when there are no stand-ins.
 */
export async function hideStandIns(
  standIns: readonly string[],
  options: { readonly userExcludes: string; readonly file: string },
): Promise<Record<string, string>> {
  if (standIns.length === 0) return {};
  const lines = standIns.map((path) => `/${path.split("\\").join("/")}`);
  await writeFile(options.file, `${options.userExcludes}\n${lines.join("\n")}\n`);
  return {
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "core.excludesFile",
    GIT_CONFIG_VALUE_0: options.file,
  };
}
