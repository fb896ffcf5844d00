/**
 * Typed wrappers over `git worktree` and branch deletion, on top of git.ts.
 */
import { realpath } from "node:fs/promises";
import path from "node:path";
import { readGit, runGit } from "./git.js";

/** One entry of `git worktree list`. */
export interface GitWorktree {
  /** Absolute path as git recorded it. */
  readonly path: string;
  /** Short branch name; undefined when detached or bare. */
  readonly branch?: string;
  readonly head?: string;
  readonly bare: boolean;
  /** The first entry: the main working tree. */
  readonly main: boolean;
  /** Git marked it prunable (its folder is gone). */
  readonly prunable: boolean;
  readonly locked: boolean;
}

function parseRecord(fields: readonly string[], main: boolean): GitWorktree | undefined {
  let worktreePath: string | undefined;
  let branch: string | undefined;
  let head: string | undefined;
  let bare = false;
  let prunable = false;
  let locked = false;
  for (const field of fields) {
    const space = field.indexOf(" ");
    const key = space === -1 ? field : field.slice(0, space);
    const value = space === -1 ? "" : field.slice(space + 1);
    if (key === "worktree") worktreePath = value;
    else if (key === "HEAD") head = value;
    else if (key === "branch") branch = value.replace(/^refs\/heads\//, "");
    else if (key === "bare") bare = true;
    else if (key === "prunable") prunable = true;
    else if (key === "locked") locked = true;
  }
  if (worktreePath === undefined) return undefined;
  return {
    path: worktreePath,
    bare,
    main,
    prunable,
    locked,
    ...(branch ? { branch } : {}),
    ...(head ? { head } : {}),
  };
}

/** Every worktree git knows of, the main one first. */
export async function listGitWorktrees(cwd: string): Promise<GitWorktree[]> {
  const output = await readGit(cwd, ["worktree", "list", "--porcelain", "-z"]);
  const worktrees: GitWorktree[] = [];
  let fields: string[] = [];
  for (const field of output.split("\0")) {
    if (field !== "") {
      fields.push(field);
      continue;
    }
    const parsed = parseRecord(fields, worktrees.length === 0);
    if (parsed) worktrees.push(parsed);
    fields = [];
  }
  const last = parseRecord(fields, worktrees.length === 0);
  if (last) worktrees.push(last);
  return worktrees;
}

/** Canonical form of a path for comparisons (symlinks resolved when it exists). */
export async function canonicalPath(target: string): Promise<string> {
  try {
    return await realpath(target);
  } catch {
    return path.resolve(target);
  }
}

/** The worktree with `branch` checked out, if any. */
export async function findWorktreeOfBranch(
  cwd: string,
  branch: string,
): Promise<GitWorktree | undefined> {
  const worktrees = await listGitWorktrees(cwd);
  return worktrees.find((worktree) => worktree.branch === branch);
}

/** Add a worktree at `worktreePath`; creates `branch` from `startPoint` when given. */
export async function addWorktree(options: {
  readonly repoRoot: string;
  readonly worktreePath: string;
  readonly branch: string;
  readonly startPoint?: string;
}): Promise<void> {
  const args = options.startPoint
    ? ["worktree", "add", "--quiet", "-b", options.branch, options.worktreePath, options.startPoint]
    : ["worktree", "add", "--quiet", options.worktreePath, options.branch];
  await runGit(options.repoRoot, args);
}

/** Remove a worktree; `force` discards its uncommitted changes. */
export async function removeWorktree(
  repoRoot: string,
  worktreePath: string,
  force = false,
): Promise<void> {
  const args = ["worktree", "remove", ...(force ? ["--force"] : []), worktreePath];
  await runGit(repoRoot, args);
}

/** Drop git's records of worktrees whose folders are gone. */
export async function pruneWorktreeRecords(repoRoot: string): Promise<void> {
  await runGit(repoRoot, ["worktree", "prune"]);
}

/** Delete a local branch (the caller has checked it is merged or not wanted). */
export async function deleteBranch(repoRoot: string, branch: string): Promise<void> {
  await runGit(repoRoot, ["branch", "--quiet", "-D", branch]);
}

/** True when `name` is a valid branch name. */
export async function isValidBranchName(cwd: string, name: string): Promise<boolean> {
  const result = await runGit(cwd, ["check-ref-format", "--branch", name], {
    allowFailure: true,
  });
  return result.exitCode === 0;
}
