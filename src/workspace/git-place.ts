import path from "node:path";
import { runGit } from "./git.js";
import type { GitRepository } from "./git-repository.js";

/**
 * Where a folder is in git, as one `git rev-parse` answers it: read once when
 * a run starts and shared by its locks and its git requirement, so the run
 * does not ask git the same thing again (docs/performance.md#run-start).
 */
export interface GitPlace {
  /** The git folder every worktree of the repository shares (absolute); absent outside git. */
  readonly commonDir?: string;
  /** True when the folder is inside the working tree of a repository (not its git folder). */
  readonly insideWorkTree: boolean;
}

/** Outside any repository (or where git cannot say). */
const OUTSIDE_GIT: GitPlace = { insideWorkTree: false };

/** The place of `cwd` in git; throws only when git timed out or was cancelled. */
export async function readGitPlace(cwd: string): Promise<GitPlace> {
  const answer = await runGit(cwd, ["rev-parse", "--git-common-dir", "--is-inside-work-tree"], {
    allowFailure: true,
  });
  const [commonDir = "", inside = ""] = answer.stdout.split("\n");
  if (answer.exitCode !== 0 || commonDir === "") return OUTSIDE_GIT;
  return { commonDir: path.resolve(cwd, commonDir), insideWorkTree: inside.trim() === "true" };
}

/**
 * The repository whose working tree holds `cwd`, every folder absolute; undefined outside a
 * working tree. Read once when a run starts, then named to git (docs/integrity.md#git-state).
 */
export async function readGitRepository(cwd: string): Promise<GitRepository | undefined> {
  const answer = await runGit(
    cwd,
    ["rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel"],
    { allowFailure: true },
  );
  const [gitDir = "", commonDir = "", workTree = ""] = answer.stdout.split("\n");
  if (answer.exitCode !== 0 || gitDir === "" || commonDir === "" || workTree === "") {
    return undefined;
  }
  return { gitDir, commonDir: path.resolve(cwd, commonDir), workTree };
}
