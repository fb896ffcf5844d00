/**
 * closer's pushes: a branch, or exactly the commit its checks verified
 * (docs/integrity.md#one-commit), with closer's token for that one command.
 */
import { type GitRunOptions, runGit } from "./git.js";

/** Network commands get longer than local ones. */
const GIT_NETWORK_TIMEOUT_MS = 300_000;

/**
 * A credential helper given on the command line, after the user's own: it
 * answers with the token in `CLOSER_PUSH_TOKEN`, which only the push's own
 * environment holds (docs/worktrees-and-github.md#push-credential).
 */
const TOKEN_CREDENTIAL_HELPER =
  '!f() { test "$1" = get && echo username=x-access-token && echo "password=$CLOSER_PUSH_TOKEN"; }; f';

/** The options of one push: a network timeout, and the token for this one command. */
function pushOptions(token: string | undefined): GitRunOptions {
  return {
    timeoutMs: GIT_NETWORK_TIMEOUT_MS,
    ...(token
      ? {
          config: [`credential.helper=${TOKEN_CREDENTIAL_HELPER}`],
          env: { CLOSER_PUSH_TOKEN: token },
        }
      : {}),
  };
}

/**
 * Push `branch` to `remote` and set it as upstream. With `token`, git may
 * use it for this one command (after the user's credential helpers); it is
 * never written to a file.
 */
export async function pushBranch(
  cwd: string,
  branch: string,
  remote = "origin",
  token?: string,
): Promise<void> {
  await runGit(
    cwd,
    ["push", "--quiet", "--set-upstream", remote, `${branch}:${branch}`],
    pushOptions(token),
  );
}

/**
 * Push exactly `commit` to `branch` on `remote` (`<sha>:refs/heads/<branch>`), whatever the
 * local branch holds by then (docs/integrity.md#one-commit), and make the remote branch the
 * local one's upstream, as `pushBranch` does. The token is used as by `pushBranch`.
 */
export async function pushCommit(
  cwd: string,
  target: { readonly commit: string; readonly branch: string },
  remote = "origin",
  token?: string,
): Promise<void> {
  const { commit, branch } = target;
  await runGit(
    cwd,
    ["push", "--quiet", remote, `${commit}:refs/heads/${branch}`],
    pushOptions(token),
  );
  await runGit(cwd, ["branch", "--quiet", `--set-upstream-to=${remote}/${branch}`, branch], {
    allowFailure: true,
  });
}
