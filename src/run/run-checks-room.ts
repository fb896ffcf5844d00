/**
 * The clean room of a run in its tree (docs/integrity.md#clean-room): opened when the run
 * starts, where git can name the run's repository, and removed when it ends.
 */
import { resolve } from "node:path";
import type { ResolvedAgent } from "../ports/agent.js";
import type { RunState } from "../ports/run-state.js";
import { type ChecksRoom, openChecksRoom } from "../workspace/checks-room.js";
import { readGitRepository } from "../workspace/git-place.js";
import { getMainWorktreeRoot } from "../workspace/prepare-worktree.js";
import type { RunBase } from "./run-base.js";

/**
 * The room the checks of the run in `tree` judge its work in; undefined outside git. A resumed
 * run links the ignored entries its baseline kept, so the model's later ones stay out.
 */
export async function checksRoomForRun(
  base: RunBase,
  agent: ResolvedAgent,
  run: { readonly tree: string; readonly resumed?: RunState },
): Promise<ChecksRoom | undefined> {
  const repository = await readGitRepository(run.tree).catch(() => undefined);
  if (repository === undefined) return undefined;
  const main = await getMainWorktreeRoot(run.tree).catch(() => undefined);
  const kept = run.resumed?.baseline?.keptInRoom;
  return openChecksRoom({
    repository,
    cwd: run.tree,
    ...(kept === undefined ? {} : { kept }),
    // closer's own folders in the tree are never the project's setup.
    skipped: [
      base.runsDir,
      ...(main === undefined ? [] : [resolve(main, agent.runner.worktree.root)]),
    ],
  });
}
