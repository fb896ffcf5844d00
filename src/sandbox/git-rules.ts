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
 * A place the policy keeps read-only, and what closer makes at it while it is missing
 * (docs/sandbox.md#held-whether-or-not): an empty folder or file, which git reads as nothing there.
 */
export interface HeldPlace {
  readonly path: string;
  /** Absent where any file there would mean something to git (`HEAD`, `commondir`, `shallow`). */
  readonly make?: "folder" | "file";
}

/** The common git dir's read-only places; `make` says what stands in for a missing one. */
const COMMON_HELD: readonly { readonly name: string; readonly make?: "folder" | "file" }[] = [
  { name: "config", make: "file" },
  { name: "config.worktree", make: "file" },
  { name: "hooks", make: "folder" },
  { name: "info", make: "folder" },
  // No empty stand-in: git reads one as no repository, an error, a shallow clone.
  { name: "HEAD" },
  { name: "commondir" },
  { name: "shallow" },
  { name: "packed-refs", make: "file" },
  { name: "modules", make: "folder" },
  { name: "gitdir", make: "file" },
  // Other object stores and other objects in place of these: closer's git would read them.
  { name: "objects/info/alternates", make: "file" },
  // The objects the repository held when the run started, packed by closer then: git reads a
  // pack before a loose copy, so a loose object the model writes for an id cannot change it.
  { name: "objects/pack", make: "folder" },
  { name: "refs/replace", make: "folder" },
  // closer's own: the run locks and the runs.
  { name: "closer", make: "folder" },
];

/** The places of `names` in `folder`, held only where they exist. */
function heldWhereThey(folder: string, names: readonly string[]): HeldPlace[] {
  return names
    .map((name) => join(folder, name))
    .filter((path) => existsSync(path))
    .map((path) => ({ path }));
}

/**
 * The git metadata the model's processes may write: the objects, the task
 * branch's ref (its folder, with every other ref in it read-only), its reflog (the same),
 * and a linked worktree's own folder (index, logs) — never the config, hooks,
 * info/, HEAD, packed-refs, modules/, closer/ (locks, runs), another branch, or the files that say
 * where the git dir is (docs/sandbox.md#git). Each read-only place is held whether it exists
 * or not, but for the few that no empty stand-in can stand for.
 */
export function gitRules(place: { readonly tree: string; readonly git?: GitLayout }): {
  allowWrite: string[];
  held: HeldPlace[];
} {
  const { git, tree } = place;
  if (git === undefined) return { allowWrite: [], held: [] };
  const common = git.commonDir;
  const allowWrite = [join(common, "objects")];
  const held: HeldPlace[] = COMMON_HELD.map(({ name, make }) => ({
    path: join(common, name),
    ...(make === undefined ? {} : { make }),
  })).filter(({ path, make }) => make !== undefined || existsSync(path));
  if (git.branchRef !== undefined) {
    const ref = refPath(git, git.branchRef);
    const log = join(common, "logs", ...git.branchRef.split("/"));
    allowWrite.push(dirname(ref), dirname(log));
    // In a tree that holds its git dir, every ref (and reflog) above the branch's folder is read-only too.
    // The branches of the other worktrees come and go with their runs (merged, then deleted): a
    // read-only hold on one deleted meanwhile would keep the next process from starting.
    const others = otherWorktreeBranches(common, git.gitDir);
    const isHeld = (path: string) => !others.some((branch) => path.endsWith(`/${branch}`));
    const refs = [
      ...besides(ref, common, !git.linked).filter(isHeld),
      ...besides(log, join(common, "logs"), !git.linked).filter(isHeld),
    ];
    held.push(...refs.map((path) => ({ path })));
  }
  if (git.linked) {
    allowWrite.push(git.gitDir);
    // An empty config.worktree, which git reads as no settings, stands in for a missing one.
    held.push({ path: join(git.gitDir, "config.worktree"), make: "file" });
    held.push(...heldWhereThey(git.gitDir, ["commondir", "gitdir", "HEAD"]));
    held.push({ path: join(tree, ".git") });
  }
  return { allowWrite: allowWrite.filter((path) => existsSync(path)), held };
}
