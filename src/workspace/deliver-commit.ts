/**
 * A delivering run's pushes (docs/queue.md#delivery): the verified commit goes to the shared
 * repository, each at most once across attempts. The task branch is set to it (in place of what
 * an earlier attempt left there, on the commit read just before); the base branch only moves
 * forward to it, and a base that already holds it is done. Reading the remote runs without the
 * token, as a worker's clone and fetch do (docs/queue.md#worker); the push alone may use it
 * (docs/worktrees-and-github.md#push-credential). Given the run's id, each push also sets the
 * run's delivered marker, atomically with the commit (docs/queue.md#exactly-once).
 */
import { CloserError, isCloserError } from "../errors.js";
import { deliveredRef } from "./delivered-marker.js";
import { isAncestor, runGit } from "./git.js";
import { type PushExtras, pushExactCommit, setUpstream } from "./git-push.js";

/** Network commands get longer than local ones. */
const GIT_NETWORK_TIMEOUT_MS = 300_000;

/** What a delivery did: pushed now, or found on the remote already (an earlier attempt's). */
export type Delivered = "pushed" | "already-there";

/** The commit `remote`'s `branch` is at, `""` when it has no such branch. */
export async function readRemoteBranch(
  cwd: string,
  branch: string,
  remote = "origin",
): Promise<string> {
  const listed = await runGit(cwd, ["ls-remote", "--quiet", remote, `refs/heads/${branch}`], {
    timeoutMs: GIT_NETWORK_TIMEOUT_MS,
  });
  return listed.stdout.trim().split(/\s+/)[0] ?? "";
}

/**
 * Set `branch` on `remote` to exactly `commit`: nothing to do when it is there already; else
 * pushed in place of what the remote branch held when read (`--force-with-lease`), so a later
 * attempt of the run replaces an earlier attempt's commit and nothing pushed meanwhile.
 */
export async function deliverBranch(
  cwd: string,
  target: { readonly commit: string; readonly branch: string; readonly runId?: string },
  remote = "origin",
  extras: PushExtras = {},
): Promise<Delivered> {
  const now = await readRemoteBranch(cwd, target.branch, remote);
  if (now === target.commit) return "already-there";
  const { commit, branch, runId } = target;
  const marker = runId === undefined ? {} : { marker: deliveredRef(runId) };
  await pushExactCommit(cwd, { commit, branch, lease: now, ...marker }, remote, extras);
  await setUpstream(cwd, target.branch, remote);
  return "pushed";
}

/**
 * Move `remote`'s `base` forward to exactly `commit`, never otherwise: a base that already
 * holds it is done; a base that moved past what the commit grew from is refused, naming both.
 */
export async function deliverToBase(
  cwd: string,
  target: { readonly commit: string; readonly base: string; readonly runId?: string },
  remote = "origin",
  extras: PushExtras = {},
): Promise<Delivered> {
  const { commit, base, runId } = target;
  const remoteBase = await fetchBase(cwd, base, remote);
  if (remoteBase !== "" && (await isAncestor(cwd, commit, remoteBase))) return "already-there";
  if (remoteBase !== "" && !(await isAncestor(cwd, remoteBase, commit))) {
    throw movedOn(commit, base, remote, remoteBase);
  }
  try {
    const marker = runId === undefined ? {} : { marker: deliveredRef(runId) };
    await pushExactCommit(cwd, { commit, branch: base, ...marker }, remote, extras);
    return "pushed";
  } catch (error) {
    if (!isCloserError(error)) throw error;
    // Refused: the base moved meanwhile — perhaps to this very commit, by another attempt.
    const after = await fetchBase(cwd, base, remote).catch(() => "");
    if (after !== "" && (await isAncestor(cwd, commit, after))) return "already-there";
    throw error;
  }
}

/** Fetch `remote`'s `base` into its remote-tracking branch; the commit it is at. */
async function fetchBase(cwd: string, base: string, remote: string): Promise<string> {
  const tracking = `refs/remotes/${remote}/${base}`;
  await runGit(cwd, ["fetch", "--quiet", "--no-tags", remote, `+refs/heads/${base}:${tracking}`], {
    timeoutMs: GIT_NETWORK_TIMEOUT_MS,
  });
  const read = await runGit(cwd, ["rev-parse", "--verify", "--quiet", `${tracking}^{commit}`], {
    allowFailure: true,
  });
  return read.exitCode === 0 ? read.stdout.trim() : "";
}

function movedOn(commit: string, base: string, remote: string, remoteBase: string): CloserError {
  return new CloserError(
    "workspace_error",
    `${remote}'s ${base} moved on to ${remoteBase}, which the verified commit ${commit} does not build on; closer pushes only the verified commit, fast-forward only`,
    {
      fix: `run the issue again from ${remote}'s ${base}, or leave runner.worktree.onSuccess unset (or "push") to get a pull request instead`,
    },
  );
}
