import { DEFAULT_ON_FAILURE } from "../definition/registry-file-schema.js";
import { BUILTIN_PATTERN_NAMES, type CheckFailure } from "../ports/check-failure.js";
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
  const commit = await run.ports.integrity.readHeadCommit().catch(() => "");
  if (commit === "") return undefined;
  const tree = await run.ports.integrity.readTreeFingerprint().catch(() => undefined);
  return tree === undefined ? { commit } : { commit, tree };
}

/**
 * The verdict, about the commit its checks started on: when HEAD or the tree moved while they
 * ran, a verdict that would accept the work is void and the declaration is refuted as
 * `tree-changed` (a guard: `onFailure: skip` never accepts it). A refutation that leads to a
 * retry stands: the model is told what the check found.
 */
export async function holdCheckedCommit(
  run: RunContext,
  turn: Turn,
  found: { readonly verdict: CheckedVerdict; readonly checked: CheckedCommit | undefined },
): Promise<CheckedVerdict> {
  const { verdict, checked } = found;
  if (checked === undefined) return verdict;
  const held: CheckedVerdict = { ...verdict, commit: checked.commit };
  if (!acceptsWork(turn, verdict)) return held;
  const failure = await readMove(run, checked);
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
): Promise<CheckFailure | undefined> {
  const commitNow = await run.ports.integrity.readHeadCommit().catch(() => "");
  const treeNow = await run.ports.integrity.readTreeFingerprint().catch(() => undefined);
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
  if (moved.length === 0) return undefined;
  const name = BUILTIN_PATTERN_NAMES.treeChanged;
  return {
    kind: "guard",
    name,
    pattern: name,
    params: { moved, checkedCommit: checked.commit, commitNow },
    detail: `the work changed while it was being checked: ${moved.join("; ")}`,
  };
}
