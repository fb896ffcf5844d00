import {
  CLOSURE_REVIEW_SCHEMA,
  type ClosureReviewReading,
  closureReviewWords,
  readClosureReview,
} from "../completion/closure-review.js";
import type { BackendRequest } from "../ports/backend.js";
import type { TreeChanges } from "../ports/files.js";
import { CLOSURE_REVIEW_REASON } from "../ports/receipt-reason.js";
import type { ClosureReviewDefinition } from "../ports/registry.js";
import type { ReviewRecord } from "../ports/run-state.js";
import { gatherReviewEvidence, type ReviewSubject, readChanges } from "./gather-review-evidence.js";
import type { Query } from "./query.js";
import { queryBackend } from "./query-backend.js";
import { emit, type RunContext, recordPrompt, updateState } from "./run-context.js";
import { type Turn, variablesFor } from "./start-iteration.js";
import type { Terminal } from "./terminal-state.js";

const LABEL = "closure-review";

/** What the reviewer may do where the backend lets closer say so: read, search, and read git. */
export const REVIEW_TOOLS: Pick<
  BackendRequest,
  "allowedTools" | "disallowedTools" | "permissionMode"
> = Object.freeze({
  allowedTools: [
    "Read",
    "Grep",
    "Glob",
    "Bash(git diff:*)",
    "Bash(git log:*)",
    "Bash(git show:*)",
    "Bash(git status:*)",
  ],
  disallowedTools: ["Write", "Edit", "MultiEdit", "NotebookEdit"],
  permissionMode: "dontAsk",
});

/**
 * Closure review (docs/completion.md#closure-review): after the validators
 * and guards pass, one extra query in the same iteration shows a reviewer the
 * changes since the baseline, what the checks ran and what the worker
 * declared, and asks for a checklist in a fixed schema. By default the
 * reviewer works in a session of its own, with read-only tools; a review that
 * changes the working tree does not count. It waits out rate limits like any query.
 */
export async function reviewClosure(
  run: RunContext,
  turn: Turn,
  review: ClosureReviewDefinition,
  subject: ReviewSubject,
): Promise<ClosureReviewReading | Terminal> {
  const evidence = await gatherReviewEvidence(run, subject);
  if ("unreadable" in evidence) {
    // No evidence, no review: the model is not asked, and the declaration is not complete.
    const finding = `closer could not read the changes: ${evidence.unreadable}`;
    emit(run, {
      type: "closure-review",
      iteration: turn.iteration,
      allComplete: false,
      pendingActions: [finding],
      session: review.session === "fresh" || review.backend !== undefined ? "fresh" : "worker",
      costUsd: 0,
      durationMs: 0,
    });
    return rejected(finding);
  }
  const prompt = await run.ports.promptResolver({
    agentDir: run.agent.dir,
    words: closureReviewWords(run.agent.registry.c1, review),
    variables: {
      ...variablesFor(run, turn.iteration, turn.checkId, run.state.previousSummary),
      ...evidence.variables,
    },
  });
  recordPrompt(run, {
    iteration: turn.iteration,
    step: turn.step.id,
    prompt,
    kind: "closure-review",
    label: LABEL,
  });
  const reviewer = await reviewerOf(run, review);
  const costBefore = run.state.totals.costUsd;
  const startedMs = run.ports.clock.now();
  const treeBefore = await fingerprint(run);
  // What the review's own changes are told against: the work tree as it is before it.
  const changesBefore = await readChanges(run, run.state.baseline?.commit ?? "");
  const answer = await queryBackend(run, {
    ...turn.query,
    prompt: prompt.text,
    reason: CLOSURE_REVIEW_REASON,
    schema: CLOSURE_REVIEW_SCHEMA,
    label: LABEL,
    freshSession: review.session === "fresh" || reviewer !== undefined,
    tools: REVIEW_TOOLS,
    ...(reviewer === undefined ? {} : { backend: reviewer }),
  });
  if (answer.terminal) return answer.terminal;
  const changedFiles =
    (await fingerprint(run)) === treeBefore ? [] : await changedByReview(run, changesBefore);
  const reading = countOnlyUnchanged(
    readClosureReview(answer.response, run.ports.schemaValidators),
    changedFiles,
  );
  const costUsd = run.state.totals.costUsd - costBefore;
  const durationMs = run.ports.clock.now() - startedMs;
  recordReview(run, reading, { costUsd, durationMs });
  emit(run, {
    type: "closure-review",
    iteration: turn.iteration,
    allComplete: reading.ok && reading.complete,
    pendingActions: reading.ok ? [...reading.pendingActions] : [reading.error],
    session: review.session === "fresh" || reviewer !== undefined ? "fresh" : "worker",
    costUsd,
    durationMs,
    ...(changedFiles.length === 0 ? {} : { changedFiles }),
  });
  return reading;
}

/** The backend the review names, made on first use; undefined: the run's own. */
async function reviewerOf(
  run: RunContext,
  review: ClosureReviewDefinition,
): Promise<Query["backend"]> {
  const config = review.backend;
  if (config === undefined) return undefined;
  const backend = await (run.ports.reviewBackend?.(config) ?? Promise.resolve(run.ports.backend));
  return { backend, ...(config.model === undefined ? {} : { model: config.model }) };
}

async function fingerprint(run: RunContext): Promise<string> {
  return await run.ports.integrity.readTreeFingerprint().catch(() => "");
}

/** The files whose changes since the baseline differ from what the review was shown. */
async function changedByReview(run: RunContext, before: TreeChanges): Promise<string[]> {
  const after = await readChanges(run, run.state.baseline?.commit ?? "");
  const shown = new Map(before.files.map((file) => [file.path, file.diff]));
  const now = new Map(after.files.map((file) => [file.path, file.diff]));
  const paths = new Set([...shown.keys(), ...now.keys()]);
  const changed = [...paths].filter((path) => shown.get(path) !== now.get(path));
  return changed.length > 0 ? changed.sort() : ["the working tree"];
}

/** A review that changed the tree is not complete, whatever it answered. */
function countOnlyUnchanged(
  reading: ClosureReviewReading,
  changedFiles: readonly string[],
): ClosureReviewReading {
  if (changedFiles.length === 0) return reading;
  const finding = `the review changed the working tree: ${changedFiles.join(", ")}`;
  return rejected(finding, reading.ok ? reading.review.checklist : []);
}

/** A review that is not complete, for a finding of closer's own. */
function rejected(
  finding: string,
  checklist: Extract<ClosureReviewReading, { ok: true }>["review"]["checklist"] = [],
): ClosureReviewReading {
  return {
    ok: true,
    review: { allComplete: false, checklist, pendingActions: [finding] },
    complete: false,
    pendingActions: [finding],
  };
}

/** Adds the review's cost to run.json and, for a rejection, its findings. */
function recordReview(
  run: RunContext,
  reading: ClosureReviewReading,
  spent: { readonly costUsd: number; readonly durationMs: number },
): void {
  const record: ReviewRecord = run.state.review ?? { rejections: 0, costUsd: 0, durationMs: 0 };
  const rejected = reading.ok && !reading.complete;
  updateState(run, {
    review: {
      ...record,
      costUsd: record.costUsd + spent.costUsd,
      durationMs: record.durationMs + spent.durationMs,
      ...(rejected
        ? {
            rejections: record.rejections + 1,
            last: {
              pendingActions: [...reading.review.pendingActions],
              checklist: reading.review.checklist
                .filter((entry) => !entry.done)
                .map((entry) => `${entry.item}: ${entry.evidence}`),
            },
          }
        : {}),
    },
  });
}
