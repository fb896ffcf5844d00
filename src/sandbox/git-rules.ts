/**
 * What of git's metadata the model's processes may write in the OS sandbox,
 * and what they may not (docs/sandbox.md#git).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type GitLayout, refPath } from "./git-layout.js";

/** Existing entries of `folder` other than `keep`. */
function siblings(folder: string, keep: string): string[] {
  try {
    return readdirSync(folder)
      .filter((name) => name !== keep)
      .map((name) => join(folder, name));
  } catch {
    return [];
  }
}

/**
 * What lies beside `file` in its folder and, with `everyLevel`, beside each
 * folder above it up to `top`'s children: the other refs beside a branch's.
 */
function besides(file: string, top: string, everyLevel: boolean): string[] {
  const found: string[] = [];
  for (let path = file; dirname(path) !== top && path !== top; path = dirname(path)) {
    found.push(...siblings(dirname(path), basename(path)));
    if (!everyLevel) break;
  }
  return found;
}

/** `refs/heads/…` checked out in the repository's linked worktrees other than `gitDir`'s. */
function otherWorktreeBranches(common: string, gitDir: string): string[] {
  const folder = join(common, "worktrees");
  return siblings(folder, basename(gitDir)).flatMap((admin) => {
    try {
      const head = readFileSync(join(admin, "HEAD"), "utf8").trim();
      return head.startsWith("ref: refs/heads/") ? [head.slice("ref: ".length)] : [];
    } catch {
      return [];
    }
  });
}

/**
 * The git metadata the model's processes may write: the objects, the task
 * branch's ref (its folder, with every other ref in it read-only), its reflog (the same),
 * and a linked worktree's own folder (index, logs) — never the config, hooks,
 * info/, HEAD, packed-refs, modules/, closer/ (locks, runs), another branch, or the files that say
 * where the git dir is (docs/sandbox.md#git).
 */
export function gitRules(place: { readonly tree: string; readonly git?: GitLayout }): {
  allowWrite: string[];
  denyWrite: string[];
} {
  const { git, tree } = place;
  if (git === undefined) return { allowWrite: [], denyWrite: [] };
  const common = git.commonDir;
  const allowWrite = [join(common, "objects")];
  const denyWrite = [
    "config",
    "config.worktree",
    "hooks",
    "info",
    "HEAD",
    "packed-refs",
    "modules",
    "commondir",
    "gitdir",
    // closer's own: the run locks and the runs.
    "closer",
  ]
    .map((name) => join(common, name))
    .filter((path) => existsSync(path));
  if (git.branchRef !== undefined) {
    const ref = refPath(git, git.branchRef);
    const log = join(common, "logs", ...git.branchRef.split("/"));
    allowWrite.push(dirname(ref), dirname(log));
    // In a tree that holds its git dir, every ref (and reflog) above the branch's folder is read-only too.
    // The branches of the other worktrees come and go with their runs (merged, then deleted): a
    // read-only hold on one deleted meanwhile would keep the next process from starting.
    const others = otherWorktreeBranches(common, git.gitDir);
    const held = (path: string) => !others.some((branch) => path.endsWith(`/${branch}`));
    denyWrite.push(
      ...besides(ref, common, !git.linked).filter(held),
      ...besides(log, join(common, "logs"), !git.linked).filter(held),
    );
  }
  if (git.linked) {
    allowWrite.push(git.gitDir);
    // config.worktree may not exist yet: the sandbox holds an empty one in its place, which git reads as no settings.
    denyWrite.push(join(git.gitDir, "config.worktree"));
    for (const name of ["commondir", "gitdir", "HEAD"]) {
      const path = join(git.gitDir, name);
      if (existsSync(path)) denyWrite.push(path);
    }
    denyWrite.push(join(tree, ".git"));
  }
  return { allowWrite: allowWrite.filter((path) => existsSync(path)), denyWrite };
}
