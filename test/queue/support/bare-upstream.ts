import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git } from "../../run/support/issue-repo.js";

/** A bare repository the workers clone and deliver to, as a shared repository on a server. */
export interface BareUpstream {
  readonly dir: string;
  /** The commit `branch` is at, `""` when there is no such branch. */
  commitOf(branch: string): Promise<string>;
  /** The commit `ref` (a full ref name) is at, `""` when there is no such ref. */
  refOf(ref: string): Promise<string>;
  /** The commits on `branch` that `from` does not hold, newest first. */
  commitsSince(from: string, branch: string): Promise<string[]>;
  /** The branches, without `refs/heads/`. */
  branches(): Promise<string[]>;
  /** True when `ancestor` is reachable from `branch`. */
  holds(branch: string, ancestor: string): Promise<boolean>;
  /** The text of `file` at `branch`. */
  fileAt(branch: string, file: string): Promise<string>;
  cleanup(): Promise<void>;
}

/** A bare clone of `source` (its branches as they are now). */
export async function makeBareUpstream(source: string): Promise<BareUpstream> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "closer-upstream-")));
  const dir = join(root, "widgets.git");
  await git(root, "clone", "--quiet", "--bare", source, dir);
  return {
    dir,
    commitOf: async (branch) =>
      git(dir, "rev-parse", "--verify", "--quiet", `refs/heads/${branch}`).catch(() => ""),
    refOf: async (ref) => git(dir, "rev-parse", "--verify", "--quiet", ref).catch(() => ""),
    commitsSince: async (from, branch) =>
      (await git(dir, "rev-list", `${from}..refs/heads/${branch}`))
        .split("\n")
        .filter((line) => line !== ""),
    branches: async () =>
      (await git(dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/"))
        .split("\n")
        .filter((line) => line !== ""),
    holds: async (branch, ancestor) =>
      git(dir, "merge-base", "--is-ancestor", ancestor, `refs/heads/${branch}`).then(
        () => true,
        () => false,
      ),
    fileAt: (branch, file) => git(dir, "show", `refs/heads/${branch}:${file}`),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
