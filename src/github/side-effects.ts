/**
 * The GitHub side effects of a run — labels, closing, comments — performed by
 * the harness (never the model), each at most once: every effect has a stable
 * key, recorded right after it succeeds, so a resumed run skips it. Labels and
 * closing are idempotent on GitHub's side; a comment carries a hidden marker
 * of its run and key, so a run killed after posting it but before recording
 * it finds it on resume instead of posting it again.
 */

import { type CloserError, isCloserError } from "../errors.js";
import type { GithubClient } from "../ports/github.js";
import type { CostByReason } from "../ports/receipt-reason.js";
import type { GithubConfig } from "../ports/runner-config.js";

/** The client calls side effects need. */
export type EffectsClient = Pick<
  GithubClient,
  "addLabels" | "removeLabel" | "closeIssue" | "comment" | "listComments"
>;

interface EffectsBase {
  readonly client: EffectsClient;
  readonly issue: number;
  /** The run the effects belong to (marks its comments). */
  readonly runId: string;
  readonly config: GithubConfig;
  readonly iterations: number;
  /** Keys already performed by an earlier attempt of this run (RunState.sideEffects). */
  readonly alreadyDone: readonly string[];
  /** Persist a key right after its effect succeeded. */
  readonly record: (effectKey: string) => Promise<void>;
}

export interface CompletionEffectsOptions extends EffectsBase {
  /** What the model reported it did. */
  readonly summary: string;
  /** Validators that passed in the verifying check. */
  readonly checksPassed: readonly string[];
  readonly costUsd: number;
  /** The cost by why each query was sent (docs/observe.md#receipts). */
  readonly costByReason?: CostByReason;
  /** What the run published: its pull request, or the commit pushed to the base (docs/queue.md#delivery). */
  readonly delivered?: string;
  /**
   * An earlier attempt of the run verified and delivered the work, on a machine whose record
   * this one does not have (docs/queue.md#exactly-once): its iterations, checks and cost are
   * not known here, and the comment says so instead of naming them.
   */
  readonly byEarlierAttempt?: boolean;
}

export interface FailureEffectsOptions extends EffectsBase {
  /** Terminal status, e.g. `max_iterations`. */
  readonly status: string;
  /** Where and why the run stopped. */
  readonly reason: string;
  /** The kept worktree with the agent's work, if any. */
  readonly worktreePath?: string;
}

/** What was done. Effects stop at the first failure so a resume retries it in order. */
export interface EffectsResult {
  readonly performed: readonly string[];
  /** Keys found in `alreadyDone`. */
  readonly skipped: readonly string[];
  readonly failed?: { readonly key: string; readonly error: CloserError };
}

interface Effect {
  readonly key: string;
  readonly perform: () => Promise<unknown>;
}

/** Stable key of each effect. */
/** The keys run.json's `sideEffects` keeps for each GitHub step, so a later attempt never repeats one. */
export const EFFECT_KEYS = {
  labelAdd: (label: string) => `label-add:${label}`,
  labelRemove: (label: string) => `label-remove:${label}`,
  close: "close",
  completionComment: "comment:completion",
  failureComment: "comment:failure",
} as const;

async function applyEffects(
  effects: readonly Effect[],
  options: EffectsBase,
): Promise<EffectsResult> {
  const done = new Set(options.alreadyDone);
  const performed: string[] = [];
  const skipped: string[] = [];
  for (const effect of effects) {
    if (done.has(effect.key)) {
      skipped.push(effect.key);
      continue;
    }
    try {
      await effect.perform();
    } catch (error) {
      if (!isCloserError(error)) throw error;
      return { performed, skipped, failed: { key: effect.key, error } };
    }
    await options.record(effect.key);
    done.add(effect.key);
    performed.push(effect.key);
  }
  return { performed, skipped };
}

/** The hidden last line of a comment that says which run posted it, and as which effect. */
export function commentMarker(runId: string, effectKey: string): string {
  return `<!-- closer run ${runId} ${effectKey} -->`;
}

function commentEffect(options: EffectsBase, key: string, text: string): Effect {
  const marker = commentMarker(options.runId, key);
  return {
    key,
    perform: async () => {
      const comments = await options.client.listComments(options.issue);
      if (comments.some((comment) => comment.body.includes(marker))) return;
      await options.client.comment(options.issue, `${text}\n\n${marker}`);
    },
  };
}

/** `$0.42`, or four decimals for costs under a cent. */
function formatCostUsd(costUsd: number): string {
  return `$${costUsd.toFixed(costUsd > 0 && costUsd < 0.01 ? 4 : 2)}`;
}

/** `$0.42 (initial $0.20 · retry:test-failed $0.15 · closure-review $0.07)`: the short receipt. */
function describeCost(costUsd: number, byReason: CostByReason | undefined): string {
  const parts = Object.entries(byReason ?? {}).map(
    ([reason, totals]) => `${reason} ${formatCostUsd(totals.costUsd)}`,
  );
  const total = formatCostUsd(costUsd);
  return parts.length === 0 ? total : `${total} (${parts.join(" · ")})`;
}

/** The completion comment. */
function renderCompletionComment(options: CompletionEffectsOptions): string {
  const checks = options.checksPassed.length > 0 ? options.checksPassed.join(", ") : "none";
  return [
    "closer verified that this issue is done.",
    "",
    options.summary.trim() || "(no summary given)",
    "",
    ...(options.byEarlierAttempt === true
      ? [
          "- Verified and delivered by an earlier attempt of this run; its iterations, checks and cost are in that attempt's record",
        ]
      : [
          `- Iterations: ${options.iterations}`,
          `- Checks passed: ${checks}`,
          `- Cost: ${describeCost(options.costUsd, options.costByReason)}`,
        ]),
    ...(options.delivered === undefined ? [] : [`- ${options.delivered}`]),
  ].join("\n");
}

/** The failure comment. */
function renderFailureComment(options: FailureEffectsOptions): string {
  return [
    "closer stopped without verified completion.",
    "",
    `- Status: ${options.status}`,
    `- Where it stopped: ${options.reason}`,
    `- Iterations: ${options.iterations}`,
    ...(options.worktreePath ? [`- The work is kept in the worktree ${options.worktreePath}`] : []),
  ].join("\n");
}

/**
 * After verified completion: labels (not for `close`), the completion comment
 * (when configured), and closing (not for `label-only`), each exactly once.
 */
export async function applyCompletionEffects(
  options: CompletionEffectsOptions,
): Promise<EffectsResult> {
  const { client, issue, config } = options;
  const effects: Effect[] = [];
  if (config.closeAction !== "close") {
    for (const label of config.labels.remove) {
      effects.push({
        key: EFFECT_KEYS.labelRemove(label),
        perform: () => client.removeLabel(issue, label),
      });
    }
    for (const label of config.labels.add) {
      effects.push({
        key: EFFECT_KEYS.labelAdd(label),
        perform: () => client.addLabels(issue, [label]),
      });
    }
  }
  if (config.completionComment) {
    effects.push(
      commentEffect(options, EFFECT_KEYS.completionComment, renderCompletionComment(options)),
    );
  }
  if (config.closeAction !== "label-only") {
    effects.push({ key: EFFECT_KEYS.close, perform: () => client.closeIssue(issue) });
  }
  return applyEffects(effects, options);
}

/** After a run that did not complete: the failure comment when configured. Never closes. */
export async function applyFailureEffects(options: FailureEffectsOptions): Promise<EffectsResult> {
  const effects: Effect[] = options.config.failureComment
    ? [commentEffect(options, EFFECT_KEYS.failureComment, renderFailureComment(options))]
    : [];
  return applyEffects(effects, options);
}
