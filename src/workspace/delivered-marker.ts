/**
 * A delivered run's marker on the shared repository (docs/queue.md#exactly-once):
 * `refs/closer/delivered/<run id>`, set to the verified commit in the same atomic push that
 * delivers it, so any later attempt of the run, on any machine, asks origin whether the
 * delivery happened before it starts the run again. Reading it runs without the token, as a
 * worker's clone and fetch do (docs/queue.md#worker).
 */
import { runGit } from "./git.js";

/** Network commands get longer than local ones. */
const GIT_NETWORK_TIMEOUT_MS = 300_000;

/** The marker ref of run `runId`. */
export function deliveredRef(runId: string): string {
  return `refs/closer/delivered/${runId}`;
}

/** The commit `remote`'s marker of run `runId` names: the delivered commit, or undefined. */
export async function readDeliveredMarker(
  cwd: string,
  runId: string,
  remote = "origin",
): Promise<string | undefined> {
  const ref = deliveredRef(runId);
  const listed = await runGit(cwd, ["ls-remote", "--quiet", remote, ref], {
    timeoutMs: GIT_NETWORK_TIMEOUT_MS,
  });
  for (const line of listed.stdout.split("\n")) {
    const [commit, name] = line.trim().split(/\s+/);
    if (name === ref && commit !== undefined && commit !== "") return commit;
  }
  return undefined;
}
