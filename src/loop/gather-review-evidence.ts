import type { CompletionCheck } from "../completion/judge-outcomes.js";
import { type CheckEvidence, reviewEvidenceVariables } from "../completion/review-evidence.js";
import { inventoryOf } from "../integrity/guards.js";
import type { Declaration } from "../ports/declaration.js";
import type { ProtectedFingerprint, TreeChanges } from "../ports/files.js";
import { countTests } from "../tool-output/inventory-test.js";
import type { RunContext } from "./run-context.js";

/** What the closure review is shown of a declaration (docs/completion.md#closure-review). */
export interface ReviewSubject {
  readonly declaration: Declaration;
  readonly validation: CompletionCheck;
  /** The protected paths as the checks found them. */
  readonly protectedNow: ProtectedFingerprint;
  /** The tree object of the clean room the checks judged, when they ran in one. */
  readonly roomTree?: string;
}

/** The evidence variables of the review prompt, and the changes they were read from. */
export async function gatherReviewEvidence(
  run: RunContext,
  subject: ReviewSubject,
): Promise<
  { variables: Record<string, unknown>; changes: TreeChanges } | { readonly unreadable: string }
> {
  const commit = run.state.baseline?.commit ?? "";
  const changes = await readRoomChanges(run, commit, subject.roomTree);
  if ("unreadable" in changes) return changes;
  const protectedPaths = [
    ...Object.keys(run.state.baseline?.protectedFiles ?? {}),
    ...Object.keys(subject.protectedNow),
  ].map((path) => path.split(" › ")[0] ?? path);
  const variables = reviewEvidenceVariables({
    baselineCommit: commit,
    changes,
    checkFiles: protectedPaths,
    checks: checksOf(run, subject.validation),
    declaration: {
      ...(subject.declaration.status === undefined ? {} : { status: subject.declaration.status }),
      ...(subject.declaration.summary === undefined
        ? {}
        : { summary: subject.declaration.summary }),
    },
  });
  return { variables, changes };
}

/** The changes since the baseline commit; none when git cannot tell. */
export async function readChanges(run: RunContext, commit: string): Promise<TreeChanges> {
  try {
    return await run.ports.integrity.readChangesSince(commit);
  } catch {
    return { stat: "", files: [] };
  }
}

/**
 * The changes since the baseline commit up to the clean room's tree (docs/integrity.md#clean-room),
 * or why they cannot be shown: objects that no longer hold what their ids name are no evidence.
 */
async function readRoomChanges(
  run: RunContext,
  commit: string,
  roomTree: string | undefined,
): Promise<TreeChanges | { readonly unreadable: string }> {
  if (roomTree === undefined) return readChanges(run, commit);
  try {
    return await run.ports.integrity.readChangesSince(commit, roomTree);
  } catch (error) {
    return { unreadable: error instanceof Error ? error.message : String(error) };
  }
}

function checksOf(run: RunContext, validation: CompletionCheck): CheckEvidence[] {
  const inventories = run.state.baseline?.inventories ?? {};
  return validation.outcomes.map((outcome) => {
    const definition = run.agent.registry.validators[outcome.validator];
    const command =
      outcome.command ?? (definition?.type === "command" ? definition.command : undefined);
    const atBaseline = inventories[outcome.validator];
    const inventoryNow = inventoryOf(outcome);
    const before = atBaseline === undefined ? undefined : countTests(atBaseline);
    const now = inventoryNow === undefined ? undefined : countTests(inventoryNow);
    return {
      validator: outcome.validator,
      valid: outcome.valid,
      ...(command === undefined ? {} : { command }),
      ...(before === undefined ? {} : { testsAtBaseline: before }),
      ...(now === undefined ? {} : { testsNow: now }),
    };
  });
}
