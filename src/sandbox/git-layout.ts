/**
 * Where a working tree's git metadata is, as the sandbox policy needs it
 * (docs/sandbox.md#policy): the tree's git dir, the common dir it shares with
 * the user's repository, and the branch the work is committed on.
 */
import { isAbsolute, join, resolve } from "node:path";
import { runGit } from "../workspace/git.js";

export interface GitLayout {
  /** The tree's own git dir: `<common>/worktrees/<name>` for a linked worktree. */
  readonly gitDir: string;
  /** The git dir the tree shares with the repository: objects, refs, config. */
  readonly commonDir: string;
  /** `refs/heads/<branch>` the tree has checked out; undefined when HEAD is detached. */
  readonly branchRef?: string;
  /** Whether the tree is a linked worktree (its `.git` is a file). */
  readonly linked: boolean;
}

/** The layout of the tree at `cwd`; undefined outside a git repository. */
export async function readGitLayout(cwd: string): Promise<GitLayout | undefined> {
  const result = await runGit(
    cwd,
    ["rev-parse", "--absolute-git-dir", "--git-common-dir", "--symbolic-full-name", "HEAD"],
    { allowFailure: true },
  );
  if (result.exitCode !== 0) return undefined;
  const [gitDir = "", common = "", head = ""] = result.stdout.split("\n");
  if (gitDir === "" || common === "") return undefined;
  const commonDir = isAbsolute(common) ? common : resolve(cwd, common);
  return {
    gitDir,
    commonDir,
    ...(head.startsWith("refs/heads/") ? { branchRef: head } : {}),
    linked: resolve(gitDir) !== resolve(commonDir),
  };
}

/** The file of a loose ref. */
export function refPath(layout: GitLayout, ref: string): string {
  return join(layout.commonDir, ...ref.split("/"));
}
