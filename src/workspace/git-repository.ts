/**
 * The repository a run's git works on, named to git instead of discovered
 * from the folder a command runs in (docs/integrity.md#git-state).
 */

/**
 * A repository's folders, read once when a run starts: a command given them
 * runs on that repository whatever `.git` file or `core.worktree` the tree
 * holds later.
 */
export interface GitRepository {
  /** The tree's own git dir (absolute): `<common dir>/worktrees/<id>` for a linked worktree. */
  readonly gitDir: string;
  /** The git dir every worktree of the repository shares (absolute). */
  readonly commonDir: string;
  /** The top of the working tree (absolute). */
  readonly workTree: string;
}

/** The variables that name the repository to git, so it looks for no `.git` and reads no `core.worktree`. */
export function repositoryVariables(repository: GitRepository | undefined): Record<string, string> {
  if (repository === undefined) return {};
  const { gitDir, commonDir, workTree } = repository;
  return { GIT_DIR: gitDir, GIT_COMMON_DIR: commonDir, GIT_WORK_TREE: workTree };
}
