/**
 * 1 issue = 1 branch = 1 worktree = 1 run: create or reuse the worktree of a
 * run, and merge, push or keep it when the run ends.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { CloserError } from "../errors.js";
import { branchExists, getCurrentBranch, getGitCommonDir } from "./git.js";
import {
  addWorktree,
  canonicalPath,
  findWorktreeOfBranch,
  isValidBranchName,
  listGitWorktrees,
  pruneWorktreeRecords,
} from "./git-worktree.js";

/** Where closer keeps its worktrees unless the agent says otherwise. */
export const DEFAULT_WORKTREE_ROOT = ".closer/worktrees";
/** Branch of an issue run unless the agent or `--branch` says otherwise. */
export const DEFAULT_BRANCH_TEMPLATE = "closer/issue-{issue}";

export interface PrepareWorktreeOptions {
  /** Any folder inside the repository (usually the run's cwd). */
  readonly repoRoot: string;
  readonly issue?: number;
  /** Overrides the branch derived from the issue (`--branch`). */
  readonly branch?: string;
  /** Branch the work starts from and merges back into; default: the current branch. */
  readonly baseBranch?: string;
  /** Folder of closer's worktrees, relative to the main worktree; default `.closer/worktrees`. */
  readonly root?: string;
  /** `{issue}` is replaced by the issue number; default `closer/issue-{issue}`. */
  readonly branchTemplate?: string;
}

/** The worktree a run works in. */
export interface PreparedWorktree {
  readonly path: string;
  readonly branch: string;
  readonly baseBranch: string;
  /** False when an existing worktree of the branch was reused. */
  readonly created: boolean;
}

/** The main working tree of the repository that holds `cwd`. */
export async function getMainWorktreeRoot(cwd: string): Promise<string> {
  const worktrees = await listGitWorktrees(cwd);
  const main = worktrees[0];
  if (main && !main.bare) return main.path;
  throw new CloserError("workspace_error", "the repository has no main working tree (bare)", {
    fix: "run closer in a non-bare clone",
  });
}

/** Branch name of a run: `branch` if given, else the template filled with the issue. */
export function makeBranchName(options: {
  readonly issue?: number;
  readonly branch?: string;
  readonly branchTemplate?: string;
}): string {
  if (options.branch) return options.branch;
  if (options.issue === undefined) {
    throw new CloserError("usage_error", "a worktree needs an issue number or a branch name", {
      fix: "pass --issue N or --branch NAME, or run with --no-worktree",
    });
  }
  return (options.branchTemplate ?? DEFAULT_BRANCH_TEMPLATE).replaceAll(
    "{issue}",
    String(options.issue),
  );
}

/** Folder name of a branch's worktree: the branch with anything unusual turned into `-`. */
export function worktreeFolderName(branch: string): string {
  return branch.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+/, "");
}

async function resolveBaseBranch(cwd: string, requested?: string): Promise<string> {
  const baseBranch = requested ?? (await getCurrentBranch(cwd));
  if (baseBranch === undefined) {
    throw new CloserError("workspace_error", "HEAD is detached, so there is no base branch", {
      fix: "check out a branch or pass --base-branch NAME",
    });
  }
  if (!(await branchExists(cwd, baseBranch))) {
    throw new CloserError("workspace_error", `base branch "${baseBranch}" does not exist`, {
      expected: "a local branch",
      found: baseBranch,
      fix: "pass --base-branch with an existing local branch",
    });
  }
  return baseBranch;
}

/** Add lines to `.git/info/exclude` so closer's own files never make a tree dirty. */
export async function excludeCloserFiles(mainRoot: string, worktreeRoot: string): Promise<void> {
  const commonDir = await getGitCommonDir(mainRoot);
  const excludeFile = path.join(commonDir, "info", "exclude");
  const wanted = [".closer/"];
  const relative = path.relative(mainRoot, worktreeRoot);
  if (relative && !relative.startsWith("..") && !path.isAbsolute(relative)) {
    const pattern = `/${relative.split(path.sep).join("/")}/`;
    if (!pattern.startsWith("/.closer/")) wanted.push(pattern);
  }
  let current = "";
  try {
    current = await readFile(excludeFile, "utf8");
  } catch {
    await mkdir(path.dirname(excludeFile), { recursive: true });
  }
  const present = new Set(current.split(/\r?\n/).map((line) => line.trim()));
  const missing = wanted.filter((line) => !present.has(line));
  if (missing.length === 0) return;
  const separator = current === "" || current.endsWith("\n") ? "" : "\n";
  await writeFile(excludeFile, `${current}${separator}${missing.join("\n")}\n`);
}

async function isEmptyOrMissing(folder: string): Promise<boolean> {
  try {
    return (await readdir(folder)).length === 0;
  } catch {
    return true;
  }
}

/** Create (or reuse) the worktree of an issue or branch, off the base branch. */
export async function prepareWorktree(options: PrepareWorktreeOptions): Promise<PreparedWorktree> {
  const mainRoot = await getMainWorktreeRoot(options.repoRoot);
  const branch = makeBranchName(options);
  if (!(await isValidBranchName(mainRoot, branch))) {
    throw new CloserError("usage_error", `"${branch}" is not a valid branch name`, {
      found: branch,
      fix: "choose a branch name git accepts (see git check-ref-format)",
    });
  }
  const baseBranch = await resolveBaseBranch(options.repoRoot, options.baseBranch);
  if (baseBranch === branch) {
    throw new CloserError(
      "usage_error",
      `the run branch and the base branch are both "${branch}"`,
      {
        fix: "pass a different --branch or --base-branch",
      },
    );
  }
  const worktreeRoot = path.resolve(mainRoot, options.root ?? DEFAULT_WORKTREE_ROOT);
  await excludeCloserFiles(mainRoot, worktreeRoot);

  const existing = await findWorktreeOfBranch(mainRoot, branch);
  if (existing?.main) {
    throw new CloserError(
      "workspace_error",
      `branch "${branch}" is checked out in ${existing.path}`,
      {
        fix: `check out another branch there (git switch ${baseBranch}) and run again`,
      },
    );
  }
  if (existing && !existing.prunable) {
    return { path: existing.path, branch, baseBranch, created: false };
  }
  if (existing?.prunable) await pruneWorktreeRecords(mainRoot);

  const worktreePath = path.join(worktreeRoot, worktreeFolderName(branch));
  if (!(await isEmptyOrMissing(worktreePath))) {
    throw new CloserError("workspace_error", `${worktreePath} exists and is not a worktree`, {
      fix: `move or remove ${worktreePath} and run again`,
    });
  }
  await mkdir(worktreeRoot, { recursive: true });
  const startPoint = (await branchExists(mainRoot, branch)) ? undefined : baseBranch;
  await addWorktree({
    repoRoot: mainRoot,
    worktreePath,
    branch,
    ...(startPoint ? { startPoint } : {}),
  });
  return { path: await canonicalPath(worktreePath), branch, baseBranch, created: true };
}
