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
    { remote, pushed },
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
  const { commit, branch } = target;
  const pushed = { localRef: commit, localCommit: commit, remoteRef: `refs/heads/${branch}` };
  await pushWith(
    cwd,
    ["push", "--quiet", remote, `${commit}:refs/heads/${branch}`],
    { remote, pushed },
    extras,
  );
  await runGit(cwd, ["branch", "--quiet", `--set-upstream-to=${remote}/${branch}`, branch], {
    allowFailure: true,
  });
}

/** The pre-push hook first (a failure refuses the push), then the push with the token's channel. */
async function pushWith(
  cwd: string,
  args: readonly string[],
  push: { readonly remote: string; readonly pushed: PushedRef },
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
 * The pre-push hook as git runs it: arguments `<remote name> <url>`, one stdin line
 * `<local ref> <local sha> <remote ref> <remote sha>`. The remote's commit is what the
 * remote-tracking branch says (all zeros when there is none): closer does not ask the remote
 * before the hook, so nothing reaches the network before it passed.
 */
async function runPrePush(
  cwd: string,
  { remote, pushed }: { readonly remote: string; readonly pushed: PushedRef },
  hooks: GitHookRunner,
): Promise<void> {
  const url = (await getRemoteUrl(cwd, remote)) ?? remote;
  const branch = pushed.remoteRef.replace(/^refs\/heads\//, "");
  const remoteCommit = (await readCommit(cwd, `refs/remotes/${remote}/${branch}`)) || NO_COMMIT;
  const line = `${pushed.localRef} ${pushed.localCommit} ${pushed.remoteRef} ${remoteCommit}\n`;
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

async function readCommit(cwd: string, ref: string): Promise<string> {
  const result = await runGit(cwd, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], {
    allowFailure: true,
  });
  return result.exitCode === 0 ? result.stdout.trim() : "";
}
