/** The workspace module: git, worktrees and locks (the only place that runs git). */

export * from "./changed-files.js";
export * from "./changes-since.js";
export * from "./delivered-marker.js";
export * from "./finish-worktree.js";
export * from "./git.js";
export * from "./git-place.js";
export * from "./git-repository.js";
export * from "./git-worktree.js";
export * from "./list-worktrees.js";
export * from "./lock.js";
export * from "./prepare-worktree.js";
export * from "./tree-fingerprint.js";
