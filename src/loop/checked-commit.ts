import { DEFAULT_ON_FAILURE } from "../definition/registry-file-schema.js";
import { BUILTIN_PATTERN_NAMES, type CheckFailure } from "../ports/check-failure.js";
import type { FixedWork, RoomView } from "../ports/loop-ports.js";
import { withOthers } from "../retry/other-failures.js";
import { emit, type RunContext } from "./run-context.js";
import type { Turn } from "./start-iteration.js";
import type { CheckedVerdict } from "./verdict.js";

/** The commit and the tree a declaration's checks judge (docs/integrity.md#one-commit). */
export interface CheckedCommit {
  readonly commit: string;
  /** The working tree's fingerprint; absent when it could not be read (then HEAD alone is held). */
  readonly tree?: string;
}

/**
 * The commit HEAD names and the tree's fingerprint as the checks start; undefined outside git
 * (or before the first commit), where nothing is merged and the run's record lies in the tree.
 */
export async function readCheckedCommit(run: RunContext): Promise<CheckedCommit | undefined> {
  const read = await readHeadAndTree(run);
  return read.commit === "" ? undefined : read;
}

/**
 * HEAD's commit ("" when it cannot be read) and the tree's fingerprint (absent when it cannot),
 * read together by one `git status` where the probe can (docs/performance.md#loop-costs).
 */
async function readHeadAndTree(run: RunContext): Promise<{ commit: string; tree?: string }> {
  const { integrity } = run.ports;
  const both = await integrity.readHeadAndTree?.().catch(() => undefined);
  if (both !== undefined) {
    return both.tree === undefined || both.commit === ""
      ? { commit: both.commit }
      : { commit: both.commit, tree: both.tree };
  }
  const commit = await integrity.readHeadCommit().catch(() => "");
  if (commit === "") return { commit };
  const tree = await integrity.readTreeFingerprint().catch(() => undefined);
  return tree === undefined ? { commit } : { commit, tree };
}

/** Where a phase's checks run: the clean room rebuilt from the work, or why it could not be. */
export type CheckPlace =
  | { readonly room: RoomView }
  | { readonly unreadable: CheckFailure }
  | { readonly tree: string };

/**
 * The folder a phase's checks run in (docs/integrity.md#clean-room): the clean room, made to
 * hold the work as git sees it now (or as closer's git wrote it before: `from`) on the commit
 * the checks start on; the tree itself outside git or without a room. A room that cannot be
 * made is a `tree-changed` failure that names why: the checks never fall back to the tree.
 */
export async function placeChecks(
  run: RunContext,
  checked: CheckedCommit | undefined,
  from?: FixedWork,
): Promise<CheckPlace> {
  const room = run.ports.checksRoom;
  if (room === undefined || checked === undefined) return { tree: run.workTree };
  try {
    return { room: await room.rebuild(run.signal, from ?? { commit: checked.commit }) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { unreadable: movedFailure([`closer could not copy the work to check it: ${message}`]) };
  }
}

/** The folder the checks of a place run in. */
export function checksCwd(place: CheckPlace): string {
  return "room" in place ? place.room.cwd : "tree" in place ? place.tree : "";
}

/**
 * The verdict, about the commit its checks started on: when HEAD or the tree moved while they
 * ran, or a check wrote into the room it checked, a verdict that would accept the work is void
 * and the declaration is refuted as `tree-changed` (a guard: `onFailure: skip` never accepts
 * it). A refutation that leads to a retry stands: the model is told what the check found.
 */
export async function holdCheckedCommit(
  run: RunContext,
  turn: Turn,
  found: {
    readonly verdict: CheckedVerdict;
    readonly checked: CheckedCommit | undefined;
    readonly place: CheckPlace;
  },
): Promise<CheckedVerdict> {
  const { verdict, checked, place } = found;
  if (checked === undefined) return verdict;
  const held: CheckedVerdict = { ...verdict, commit: checked.commit };
  if (!acceptsWork(turn, verdict)) return held;
  const failure = await readMove(run, checked, "room" in place ? place.room : undefined);
  if (failure === undefined) return held;
  emit(run, {
    type: "guard",
    iteration: turn.iteration,
    guard: BUILTIN_PATTERN_NAMES.treeChanged,
    valid: false,
    detail: failure.detail,
    params: { ...failure.params },
  });
  // A refutation `skip` would have accepted is still told beside the move (docs/retry.md#also-found).
  const refutedToo = verdict.kind === "refuted" ? [verdict.failure] : [];
  return {
    kind: "refuted",
    failure: withOthers(failure, refutedToo),
    declared: true,
    outcomes: verdict.outcomes,
    commit: checked.commit,
  };
}

/** Whether the verdict would end the run `completed`: verified, or refuted and skipped. */
function acceptsWork(turn: Turn, verdict: CheckedVerdict): boolean {
  if (verdict.kind === "verified") return true;
  const onFailure = turn.completionStep?.onFailure ?? DEFAULT_ON_FAILURE;
  return onFailure.action === "skip" && verdict.failure.kind !== "guard";
}

/** What moved since the checks started, as a `tree-changed` failure; undefined when nothing did. */
async function readMove(
  run: RunContext,
  checked: CheckedCommit,
  room: RoomView | undefined,
): Promise<CheckFailure | undefined> {
  const { commit: commitNow, tree: treeNow } = await readHeadAndTree(run);
  const written = await (room?.readWrites() ?? Promise.resolve([])).catch(() => [
    "(the room could not be read again)",
  ]);
  const moved: string[] = [];
  if (commitNow !== checked.commit) {
    moved.push(
      `HEAD moved: the checks started on commit ${checked.commit}, it is at ${commitNow || "no commit"} now`,
    );
  } else if (checked.tree !== undefined && treeNow === undefined) {
    moved.push("the working tree could not be read again after the checks");
  } else if (checked.tree !== undefined && treeNow !== checked.tree) {
    moved.push("the working tree (its files, the index or the branch checked out) changed");
  }
  if (written.length > 0) {
    moved.push(`a check wrote into the copy of the work it checks: ${listed(written)}`);
  }
  if (moved.length === 0) return undefined;
  return movedFailure(moved, { checkedCommit: checked.commit, commitNow });
}

/** At most ten paths, then how many more. */
function listed(paths: readonly string[]): string {
  const shown = paths.slice(0, 10).join(", ");
  return paths.length > 10 ? `${shown} and ${paths.length - 10} more` : shown;
}

function movedFailure(
  moved: readonly string[],
  commits: { readonly checkedCommit?: string; readonly commitNow?: string } = {},
): CheckFailure {
  const name = BUILTIN_PATTERN_NAMES.treeChanged;
  return {
    kind: "guard",
    name,
    pattern: name,
    params: { moved: [...moved], ...commits },
    detail: `the work changed while it was being checked: ${moved.join("; ")}`,
  };
}
