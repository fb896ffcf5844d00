/**
 * Thin typed wrappers over the git commands closer needs. This is the only
 * module that runs git; everything goes through process/run-command.ts.
 */
import path from "node:path";
import { CloserError } from "../errors.js";
import { GITHUB_TOKEN_VARIABLES } from "../process/agent-environment.js";
import { type CommandResult, runCommand } from "../process/shell-command.js";
import { type GitRepository, repositoryVariables } from "./git-repository.js";

/** Default bound for one local git command. */
export const GIT_TIMEOUT_MS = 60_000;

/** Options of one git invocation. */
export interface GitRunOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Return a non-zero exit as a result instead of throwing. */
  readonly allowFailure?: boolean;
  /** Configuration for this one command (`-c name=value`), after closer's own. */
  readonly config?: readonly string[];
  /** Variables for this one command (a push's credential), after the tokens were taken out. */
  readonly env?: Readonly<Record<string, string>>;
  /** The repository to run on, named to git instead of found from `cwd`. */
  readonly repository?: GitRepository | undefined;
  /** Text written to git's stdin. */
  readonly input?: string;
  /**
   * Read the repository's own `core.hooksPath` (a command that runs no hook): without
   * closer's pin of it, and only for `readHooksPlace`.
   */
  readonly hooksPathAsConfigured?: boolean;
}

/**
 * Added to closer's environment for git: never wait on a credential prompt; parseable messages;
 * every object read as it is, never as `refs/replace/` would have it (docs/integrity.md#git-state).
 */
const GIT_ENVIRONMENT: Readonly<Record<string, string>> = {
  GIT_TERMINAL_PROMPT: "0",
  LC_ALL: "C",
  GIT_NO_REPLACE_OBJECTS: "1",
};

/** Taken out of closer's environment for git: the GitHub tokens, and a diff program to run. */
const REMOVED_VARIABLES: readonly string[] = [...GITHUB_TOKEN_VARIABLES, "GIT_EXTERNAL_DIFF"];

/**
 * Where closer's git looks for hooks: under `/dev/null`, where no file can be, so git runs no
 * hook of any kind (pre-push, post-merge, post-checkout, reference-transaction, pre-commit, …)
 * for a command of closer's. closer runs the user's hooks itself, without credentials
 * (docs/worktrees-and-github.md#git-hooks).
 */
export const NO_HOOKS_PATH = "/dev/null";

/**
 * Settings every git command of closer runs with, whatever the repository
 * says (docs/integrity.md#git-state): no file-system monitor program, no pager,
 * no hook. Given as `-c`, they come after any `GIT_CONFIG_PARAMETERS` or
 * `GIT_CONFIG_COUNT` of closer's environment, and the last value wins.
 */
export const PINNED_CONFIG: readonly string[] = [
  "core.fsmonitor=false",
  "core.pager=cat",
  `core.hooksPath=${NO_HOOKS_PATH}`,
];

/** closer's environment for git: without the GitHub tokens, so no hook or helper git runs sees one. */
export function gitEnvironment(
  added: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined) env[name] = value;
  for (const name of REMOVED_VARIABLES) delete env[name];
  return { ...env, ...GIT_ENVIRONMENT, ...added };
}

function describeGitFailure(args: readonly string[], result: CommandResult): string {
  const firstLine = result.stderr.trim().split("\n")[0] ?? "";
  if (result.timedOut) return `git ${args[0]} timed out`;
  if (result.aborted) return `git ${args[0]} was cancelled`;
  return `git ${args[0]} failed (exit ${result.exitCode})${firstLine ? `: ${firstLine}` : ""}`;
}

function fixFor(stderr: string): string | undefined {
  if (/please tell me who you are|unable to auto-detect email/i.test(stderr)) {
    return "set git config user.name and user.email for this repository";
  }
  if (/not a git repository/i.test(stderr)) return "run closer inside a git repository";
  return undefined;
}

/** Run `git <args>` in `cwd`; throws CloserError `workspace_error` on failure unless allowed. */
export async function runGit(
  cwd: string,
  args: readonly string[],
  options: GitRunOptions = {},
): Promise<CommandResult> {
  const pinned = options.hooksPathAsConfigured
    ? PINNED_CONFIG.filter((entry) => !entry.startsWith("core.hooksPath="))
    : PINNED_CONFIG;
  const config = [...pinned, ...(options.config ?? [])].flatMap((entry) => ["-c", entry]);
  const result = await runCommand({
    command: ["git", ...config, ...args],
    cwd,
    env: gitEnvironment({ ...repositoryVariables(options.repository), ...options.env }),
    inheritEnv: false,
    timeoutMs: options.timeoutMs ?? GIT_TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.input === undefined ? {} : { input: options.input }),
  });
  const failed = result.exitCode !== 0 || result.timedOut || result.aborted;
  if (failed && !(options.allowFailure && !result.timedOut && !result.aborted)) {
    const command = `git ${args.join(" ")}`;
    const fix = fixFor(result.stderr);
    throw new CloserError("workspace_error", describeGitFailure(args, result), {
      detail: `${command}\n(in ${cwd}, exit ${result.exitCode})\n${result.stderr.trim()}`,
      ...(fix ? { fix } : {}),
    });
  }
  return result;
}

/** stdout of `git <args>` with the trailing newline removed. */
export async function readGit(
  cwd: string,
  args: readonly string[],
  options: GitRunOptions = {},
): Promise<string> {
  const result = await runGit(cwd, args, options);
  return result.stdout.replace(/\n$/, "");
}

/** True when `cwd` is inside the working tree of a git repository (false for a missing folder too). */
export async function isInsideGitRepository(cwd: string): Promise<boolean> {
  try {
    const result = await runGit(cwd, ["rev-parse", "--is-inside-work-tree"], {
      allowFailure: true,
    });
    return result.exitCode === 0 && result.stdout.trim() === "true";
  } catch {
    return false;
  }
}

/**
 * Where the repository keeps its hooks, as git would look for them from `cwd`: its
 * `core.hooksPath` as configured (a relative one is relative to the work tree the hook runs
 * in, as git has it), or `<common dir>/hooks` (docs/worktrees-and-github.md#git-hooks).
 * `commonDir`, when the caller already knows it, saves asking git for it again.
 */
export async function readHooksPlace(cwd: string, commonDir?: string): Promise<HooksPlace> {
  const configured = await runGit(cwd, ["config", "--path", "--get", "core.hooksPath"], {
    allowFailure: true,
    hooksPathAsConfigured: true,
  });
  const value = configured.exitCode === 0 ? configured.stdout.replace(/\n$/, "") : "";
  if (value !== "") return { path: value };
  return { path: path.join(commonDir ?? (await getGitCommonDir(cwd)), "hooks") };
}

/** The hooks folder: absolute, or relative to the work tree a hook runs in. */
export interface HooksPlace {
  readonly path: string;
}

/** Top folder of the working tree that holds `cwd`. */
export async function getRepoRoot(cwd: string): Promise<string> {
  return readGit(cwd, ["rev-parse", "--show-toplevel"]);
}

/** The git folder shared by every worktree of the repository (absolute). */
export async function getGitCommonDir(cwd: string): Promise<string> {
  const directory = await readGit(cwd, ["rev-parse", "--git-common-dir"]);
  return path.resolve(cwd, directory);
}

/**
 * The git dir and the common git dir of `cwd` (absolute; one folder unless
 * `cwd` is in a linked worktree); none outside a repository.
 */
export async function getGitDirs(cwd: string): Promise<string[]> {
  const result = await runGit(cwd, ["rev-parse", "--git-dir", "--git-common-dir"], {
    allowFailure: true,
  }).catch(() => undefined);
  if (result === undefined || result.exitCode !== 0) return [];
  const dirs = result.stdout.split("\n").filter((line) => line.trim() !== "");
  return [...new Set(dirs.map((dir) => path.resolve(cwd, dir)))];
}

/** Branch checked out in `cwd`; undefined when HEAD is detached. */
export async function getCurrentBranch(cwd: string): Promise<string | undefined> {
  const result = await runGit(cwd, ["symbolic-ref", "--quiet", "--short", "HEAD"], {
    allowFailure: true,
  });
  if (result.exitCode !== 0) return undefined;
  return result.stdout.trim() || undefined;
}

/** Commit id of a revision. */
export async function resolveRevision(cwd: string, revision: string): Promise<string> {
  return readGit(cwd, ["rev-parse", "--verify", "--quiet", `${revision}^{commit}`]);
}

/** True when `git status --porcelain` is empty (untracked files count as changes). */
export async function isClean(cwd: string): Promise<boolean> {
  const status = await readGit(cwd, ["status", "--porcelain"]);
  return status.trim() === "";
}

/** Stage everything and commit; returns false when there was nothing to commit. */
export async function commitAll(cwd: string, message: string): Promise<boolean> {
  await runGit(cwd, ["add", "--all"]);
  // The content itself: no diff program or textconv the repository names (docs/integrity.md#git-state).
  const quiet = ["diff", "--no-ext-diff", "--no-textconv", "--cached", "--quiet"];
  const staged = await runGit(cwd, quiet, { allowFailure: true });
  if (staged.exitCode === 0) return false;
  await runGit(cwd, ["commit", "--quiet", "-m", message]);
  return true;
}

/** True when a local branch of that name exists. */
export async function branchExists(cwd: string, branch: string): Promise<boolean> {
  const result = await runGit(cwd, ["show-ref", "--verify", "--quiet", `refs/heads/${branch}`], {
    allowFailure: true,
  });
  return result.exitCode === 0;
}

/** Number of commits on `branch` that `base` does not have. */
export async function countCommitsAhead(
  cwd: string,
  branch: string,
  base: string,
): Promise<number> {
  const count = await readGit(cwd, ["rev-list", "--count", `${base}..${branch}`]);
  return Number.parseInt(count, 10);
}

/** True when `ancestor` is reachable from `descendant` (so merging it changes nothing). */
export async function isAncestor(
  cwd: string,
  ancestor: string,
  descendant: string,
): Promise<boolean> {
  const result = await runGit(cwd, ["merge-base", "--is-ancestor", ancestor, descendant], {
    allowFailure: true,
  });
  if (result.exitCode > 1) {
    throw new CloserError("workspace_error", describeGitFailure(["merge-base"], result), {
      detail: `git merge-base --is-ancestor ${ancestor} ${descendant}\n${result.stderr.trim()}`,
    });
  }
  return result.exitCode === 0;
}

/** How a merge went. `conflict` leaves the tree as it was (the merge is aborted). */
export type MergeResult = "up-to-date" | "fast-forward" | "merge-commit" | "conflict";

/**
 * Merge `branch` into the branch checked out in `cwd`: fast-forward when
 * possible, else a merge commit (`--no-ff`). A conflicting merge is aborted.
 */
export async function mergeBranch(cwd: string, branch: string): Promise<MergeResult> {
  if (await isAncestor(cwd, branch, "HEAD")) return "up-to-date";
  if (await isAncestor(cwd, "HEAD", branch)) {
    await runGit(cwd, ["merge", "--ff-only", "--quiet", branch]);
    return "fast-forward";
  }
  const result = await runGit(cwd, ["merge", "--no-ff", "--no-edit", "--quiet", branch], {
    allowFailure: true,
  });
  if (result.exitCode === 0) return "merge-commit";
  const merging = await runGit(cwd, ["rev-parse", "--verify", "--quiet", "MERGE_HEAD"], {
    allowFailure: true,
  });
  if (merging.exitCode !== 0) {
    // Git refused before starting (e.g. local changes in the way): nothing to abort.
    throw new CloserError("workspace_error", describeGitFailure(["merge"], result), {
      detail: `git merge --no-ff ${branch}\n(in ${cwd})\n${result.stderr.trim()}${result.stdout}`,
    });
  }
  await runGit(cwd, ["merge", "--abort"]);
  return "conflict";
}

/** URL of a remote; undefined when the remote does not exist. */
export async function getRemoteUrl(cwd: string, remote = "origin"): Promise<string | undefined> {
  const result = await runGit(cwd, ["remote", "get-url", remote], { allowFailure: true });
  if (result.exitCode !== 0) return undefined;
  return result.stdout.trim() || undefined;
}
