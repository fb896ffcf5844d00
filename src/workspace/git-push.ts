/**
 * closer's pushes: a branch, or exactly the commit its checks verified
 * (docs/integrity.md#one-commit), with closer's token for that one command, given to git's
 * credential helper on a private channel (docs/worktrees-and-github.md#push-credential). git
 * runs no hook of the repository's; the pre-push hook is closer's to run, without credentials
 * (docs/worktrees-and-github.md#git-hooks), and one that fails refuses the push as git would.
 */
import { CloserError } from "../errors.js";
import type { GitHookRunner } from "../ports/git-hooks.js";
import { type GitRunOptions, getRemoteUrl, runGit } from "./git.js";
import { openPushCredential } from "./push-credential.js";

/** Network commands get longer than local ones. */
const GIT_NETWORK_TIMEOUT_MS = 300_000;

/** What git writes for a ref the remote does not have. */
const NO_COMMIT = "0".repeat(40);

/** What a push may use besides git: the token, and the hooks' runner. */
export interface PushExtras {
  /** The token git's credential helper is given, after the user's own helpers. */
  readonly token?: string | undefined;
  /** Runs the pre-push hook as git would have (docs/worktrees-and-github.md#git-hooks). */
  readonly hooks?: GitHookRunner | undefined;
}

/** One ref a push updates, as the pre-push hook is told of it. */
interface PushedRef {
  /** The local side as the push names it: `refs/heads/<branch>`, or a commit id. */
  readonly localRef: string;
  readonly localCommit: string;
  readonly remoteRef: string;
}

/**
 * Push `branch` to `remote` and set it as upstream. With a token, git may
 * use it for this one command (after the user's credential helpers); it is
 * never written to a file.
 */
export async function pushBranch(
  cwd: string,
  branch: string,
  remote = "origin",
  extras: PushExtras = {},
): Promise<void> {
  const localCommit = await readCommit(cwd, `refs/heads/${branch}`);
  const pushed = {
    localRef: `refs/heads/${branch}`,
    localCommit,
    remoteRef: `refs/heads/${branch}`,
  };
  await pushWith(
    cwd,
    ["push", "--quiet", "--set-upstream", remote, `${branch}:${branch}`],
    { remote, pushed: [pushed] },
    extras,
  );
}

/**
 * Push exactly `commit` to `branch` on `remote` (`<sha>:refs/heads/<branch>`), whatever the
 * local branch holds by then (docs/integrity.md#one-commit), and make the remote branch the
 * local one's upstream, as `pushBranch` does. The token and hooks are used as by `pushBranch`.
 */
export async function pushCommit(
  cwd: string,
  target: { readonly commit: string; readonly branch: string },
  remote = "origin",
  extras: PushExtras = {},
): Promise<void> {
  await pushExactCommit(cwd, target, remote, extras);
  await setUpstream(cwd, target.branch, remote);
}

/** Make `remote`'s `branch` the upstream of the local `branch`, where both exist. */
export async function setUpstream(cwd: string, branch: string, remote = "origin"): Promise<void> {
  await runGit(cwd, ["branch", "--quiet", `--set-upstream-to=${remote}/${branch}`, branch], {
    allowFailure: true,
  });
}

/** Where `pushExactCommit` puts a commit. */
export interface ExactPush {
  readonly commit: string;
  /** The branch on the remote. */
  readonly branch: string;
  /**
   * The commit the remote branch must still be at for the push to replace it
   * (`--force-with-lease`), `""` for a branch that must not exist; absent: fast-forward only.
   */
  readonly lease?: string;
  /**
   * A ref set to the same commit in the same atomic push (`--atomic`, forced): the run's
   * delivered marker (docs/queue.md#exactly-once). Either both refs move or neither does.
   */
  readonly marker?: string;
}

/**
 * Push exactly `commit` to `branch` on `remote` (`<sha>:refs/heads/<branch>`), fast-forward only
 * or in place of the commit `lease` names, with the `marker` ref in the same atomic push; the
 * token and hooks are used as by `pushBranch`.
 */
export async function pushExactCommit(
  cwd: string,
  target: ExactPush,
  remote = "origin",
  extras: PushExtras = {},
): Promise<void> {
  const { commit, branch, lease, marker } = target;
  const remoteRef = `refs/heads/${branch}`;
  const pushed = [{ localRef: commit, localCommit: commit, remoteRef }];
  const refspecs = [`${commit}:${remoteRef}`];
  if (marker !== undefined) {
    pushed.push({ localRef: commit, localCommit: commit, remoteRef: marker });
    refspecs.push(`+${commit}:${marker}`);
  }
  const leased = lease === undefined ? [] : [`--force-with-lease=${remoteRef}:${lease}`];
  const atomic = marker === undefined ? [] : ["--atomic"];
  await pushWith(
    cwd,
    ["push", "--quiet", ...atomic, ...leased, remote, ...refspecs],
    { remote, pushed },
    extras,
  );
}

/** The pre-push hook first (a failure refuses the push), then the push with the token's channel. */
async function pushWith(
  cwd: string,
  args: readonly string[],
  push: { readonly remote: string; readonly pushed: readonly PushedRef[] },
  extras: PushExtras,
): Promise<void> {
  if (extras.hooks) await runPrePush(cwd, push, extras.hooks);
  const options: GitRunOptions = { timeoutMs: GIT_NETWORK_TIMEOUT_MS };
  if (!extras.token) {
    await runGit(cwd, args, options);
    return;
  }
  const credential = await openPushCredential(extras.token);
  try {
    await runGit(cwd, args, { ...options, config: [credential.helperConfig] });
  } finally {
    await credential.close();
  }
}

/**
 * The pre-push hook as git runs it: arguments `<remote name> <url>`, one stdin line per ref
 * pushed, `<local ref> <local sha> <remote ref> <remote sha>`. The remote's commit is what the
 * remote-tracking branch says (all zeros when there is none, or for a ref outside
 * `refs/heads/`): closer does not ask the remote before the hook, so nothing reaches the
 * network before it passed.
 */
async function runPrePush(
  cwd: string,
  { remote, pushed }: { readonly remote: string; readonly pushed: readonly PushedRef[] },
  hooks: GitHookRunner,
): Promise<void> {
  const url = (await getRemoteUrl(cwd, remote)) ?? remote;
  let line = "";
  for (const ref of pushed) line += await prePushLine(cwd, remote, ref);
  const result = await hooks({
    hook: "pre-push",
    operation: "push",
    args: [remote, url],
    stdin: line,
    cwd,
  });
  if (result.ran && result.exitCode !== 0) {
    const said = result.stderr.trim();
    throw new CloserError(
      "workspace_error",
      `the pre-push hook refused the push (exit ${result.exitCode})`,
      {
        detail: `pre-push ${remote} ${url}\n${line}${said}`,
        fix: 'make the repository\'s pre-push hook pass, or set runner.git.hooks to "skip"',
      },
    );
  }
}

/** The pre-push hook's stdin line of one pushed ref. */
async function prePushLine(cwd: string, remote: string, pushed: PushedRef): Promise<string> {
  const branch = pushed.remoteRef.startsWith("refs/heads/")
    ? pushed.remoteRef.slice("refs/heads/".length)
    : undefined;
  const remoteCommit =
    branch === undefined
      ? NO_COMMIT
      : (await readCommit(cwd, `refs/remotes/${remote}/${branch}`)) || NO_COMMIT;
  return `${pushed.localRef} ${pushed.localCommit} ${pushed.remoteRef} ${remoteCommit}\n`;
}

async function readCommit(cwd: string, ref: string): Promise<string> {
  const result = await runGit(cwd, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], {
    allowFailure: true,
  });
  return result.exitCode === 0 ? result.stdout.trim() : "";
}
