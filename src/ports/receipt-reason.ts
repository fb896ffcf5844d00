import type { Usage } from "./backend.js";
import { BUILTIN_PATTERN_NAMES } from "./check-failure.js";

/**
 * Why a backend query happened (docs/observe.md#receipts): `initial`, `continuation`,
 * `retry:<pattern>`, `retry:format`, `closure-review`, `completion` or `repeat:<error kind>`.
 */
export type ReceiptReason = string;

export const CLOSURE_REVIEW_REASON = "closure-review";

/** The query of a completion step's own prompt (docs/completion.md#completion-prompt). */
export const COMPLETION_PROMPT_REASON = "completion";

/** What a prompt says about the query it opens. */
export interface PromptOrigin {
  readonly kind: "step" | "retry" | "format-retry" | "closure-review" | "completion";
  readonly iteration: number;
  /** The failure pattern of a retry prompt. */
  readonly pattern?: string;
}

/** The reason of the query a prompt opens. */
export function reasonOfPrompt(origin: PromptOrigin): ReceiptReason {
  if (origin.kind === "closure-review") return CLOSURE_REVIEW_REASON;
  if (origin.kind === "completion") return COMPLETION_PROMPT_REASON;
  if (origin.kind === "format-retry" || origin.pattern === BUILTIN_PATTERN_NAMES.formatError) {
    return "retry:format";
  }
  if (origin.kind === "retry") return `retry:${origin.pattern ?? "unknown"}`;
  return origin.iteration <= 1 ? "initial" : "continuation";
}

/** The reason of the same query sent again after a retryable error of this kind. */
export function repeatReason(errorKind: string): ReceiptReason {
  return `repeat:${errorKind}`;
}

/** One reason's share of a run: kept in run.json so it survives a resume. */
export interface ReasonTotals {
  readonly queries: number;
  readonly costUsd: number;
  readonly durationMs: number;
  readonly usage: Usage;
}

export type CostByReason = Readonly<Record<ReceiptReason, ReasonTotals>>;

const NO_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheCreationTokens: 0,
};

/** The totals with one more query of `reason` added; the order of first appearance is kept. */
export function addReceipt(
  totals: CostByReason | undefined,
  reason: ReceiptReason,
  query: { readonly costUsd: number; readonly durationMs: number; readonly usage?: Usage },
): CostByReason {
  const before = totals?.[reason];
  const usageBefore = before?.usage ?? NO_USAGE;
  const usage = query.usage ?? NO_USAGE;
  return {
    ...totals,
    [reason]: {
      queries: (before?.queries ?? 0) + 1,
      costUsd: (before?.costUsd ?? 0) + query.costUsd,
      durationMs: (before?.durationMs ?? 0) + query.durationMs,
      usage: {
        inputTokens: usageBefore.inputTokens + (usage.inputTokens ?? 0),
        outputTokens: usageBefore.outputTokens + (usage.outputTokens ?? 0),
        cacheReadTokens: usageBefore.cacheReadTokens + (usage.cacheReadTokens ?? 0),
        cacheCreationTokens: usageBefore.cacheCreationTokens + (usage.cacheCreationTokens ?? 0),
      },
    },
  };
}
