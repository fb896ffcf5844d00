/**
 * The user's git hooks around the git operations closer does itself
 * (docs/worktrees-and-github.md#git-hooks). closer's git never runs a hook; where git would
 * have run one, closer asks this port, which runs it in the validators' sandbox without
 * credentials, or skips it, as `runner.git.hooks` says.
 */

/** The hooks closer runs itself, each for the operation git would have run it for. */
export type GitHookName = "pre-push" | "post-merge" | "post-checkout";

/** One hook to run as git would: its arguments, its stdin, the work tree it runs in. */
export interface GitHookCall {
  readonly hook: GitHookName;
  /** closer's operation, as the record names it: `push`, `merge`, `worktree-add`. */
  readonly operation: string;
  readonly args: readonly string[];
  /** What git would write to the hook's stdin (pre-push: one line per ref). */
  readonly stdin?: string;
  /** The work tree the hook runs in (absolute). */
  readonly cwd: string;
}

/** How a hook went: not there, skipped, or run with its exit code. */
export type GitHookResult =
  | { readonly ran: false; readonly present: boolean }
  | { readonly ran: true; readonly exitCode: number; readonly stderr: string };

/** Runs (or skips) one hook; never throws for the hook's own failure. */
export type GitHookRunner = (call: GitHookCall) => Promise<GitHookResult>;
