/**
 * The git steps that finish a run with the commit its checks verified, and only that commit
 * (docs/integrity.md#one-commit): where the branch stands now, and a merge of a commit (not of
 * a branch name) into the branch checked out in a worktree.
 */
import { CloserError } from "../errors.js";
import { isAncestor, type MergeResult, runGit } from "./git.js";

/** Where a branch or a worktree's HEAD stands, when it is not at the verified commit. */
export interface MovedRef {
  /** `refs/heads/<branch>`, or `HEAD` of the worktree. */
  readonly ref: string;
  /** The commit it names now ("" when it names none). */
  readonly now: string;
}

/**
 * The branch and the worktree's HEAD must both still be at `commit`: the first that is not,
 * or undefined when both are.
 */
export async function readMoveSince(
  worktreePath: string,
  branch: string,
  commit: string,
): Promise<MovedRef | undefined> {
  for (const ref of [`refs/heads/${branch}`, "HEAD"]) {
    const now = await readCommitOf(worktreePath, ref);
    if (now !== commit) return { ref, now };
  }
  return undefined;
}

async function readCommitOf(cwd: string, ref: string): Promise<string> {
  const result = await runGit(cwd, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], {
    allowFailure: true,
  });
  return result.exitCode === 0 ? result.stdout.trim() : "";
}

/**
 * Merge `commit` into the branch checked out in `cwd`: fast-forward when possible, else a merge
 * commit with `message`. A conflicting merge is aborted; git refusing to start (local changes
 * in the way) throws `workspace_error`.
 */
export async function mergeCommit(
  cwd: string,
  commit: string,
  message: string,
): Promise<MergeResult> {
  if (await isAncestor(cwd, commit, "HEAD")) return "up-to-date";
  if (await isAncestor(cwd, "HEAD", commit)) {
    await runGit(cwd, ["merge", "--ff-only", "--quiet", commit]);
    return "fast-forward";
  }
  const result = await runGit(cwd, ["merge", "--no-ff", "--quiet", "-m", message, commit], {
    allowFailure: true,
  });
  if (result.exitCode === 0) return "merge-commit";
  const merging = await runGit(cwd, ["rev-parse", "--verify", "--quiet", "MERGE_HEAD"], {
    allowFailure: true,
  });
  if (merging.exitCode !== 0) {
    // Git refused before starting (e.g. local changes in the way): nothing to abort.
    const firstLine = result.stderr.trim().split("\n")[0] ?? "";
    throw new CloserError(
      "workspace_error",
      `git merge failed (exit ${result.exitCode})${firstLine ? `: ${firstLine}` : ""}`,
      {
        detail: `git merge --no-ff ${commit}\n(in ${cwd})\n${result.stderr.trim()}${result.stdout}`,
      },
    );
  }
  await runGit(cwd, ["merge", "--abort"]);
  return "conflict";
}
