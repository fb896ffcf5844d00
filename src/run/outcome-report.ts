import type { RunOutcome } from "./run-options.js";

/** The `--json` result of one run: the fields of docs/cli.md#json-output, plus the worktree and issue when there are. */
export function outcomeJson(outcome: RunOutcome): Record<string, unknown> {
  const { worktree, worktreeEnd } = outcome;
  return {
    success: outcome.success,
    status: outcome.status,
    reason: outcome.reason,
    iterations: outcome.iterations,
    runId: outcome.runId,
    runDir: outcome.runDir,
    costUsd: outcome.costUsd,
    costByReason: outcome.costByReason ?? {},
    refutedDeclarations: outcome.refutedDeclarations,
    flaky: outcome.flaky,
    ...(outcome.sandbox === undefined ? {} : { sandbox: outcome.sandbox }),
    ...(outcome.reviewCostUsd === undefined ? {} : { reviewCostUsd: outcome.reviewCostUsd }),
    ...(outcome.review === undefined ? {} : { review: outcome.review }),
    ...(worktree === undefined
      ? {}
      : {
          worktree: {
            ...worktree,
            ...(worktreeEnd === undefined ? {} : { action: worktreeEnd.action }),
            ...(worktreeEnd?.pullRequestUrl === undefined
              ? {}
              : { pullRequestUrl: worktreeEnd.pullRequestUrl }),
          },
        }),
    ...(outcome.issue === undefined ? {} : { issue: outcome.issue }),
    ...(outcome.errorCode === undefined ? {} : { errorCode: outcome.errorCode }),
  };
}

/** `$0.0123` under a dollar, `$1.23` above. */
export function formatUsd(costUsd: number): string {
  return `$${costUsd.toFixed(costUsd < 1 ? 4 : 2)}`;
}

/** What a progress display already said of the run's end. */
export interface ShownRunEnd {
  readonly success: boolean;
  readonly reason: string;
}

function verdictOf(outcome: RunOutcome): string {
  if (outcome.success) return "completed";
  // Verified, but something after the loop (a GitHub step) did not go through.
  if (outcome.status === "completed") return "verified but not finished";
  return `not completed (${outcome.status})`;
}

/**
 * Lines describing how one run ended, for the terminal. The first line (verdict,
 * iterations, cost, reason) is left out when `shownEnd` already said the same.
 */
export function describeOutcome(outcome: RunOutcome, shownEnd?: ShownRunEnd): string[] {
  const repeated = shownEnd?.success === outcome.success && shownEnd.reason === outcome.reason;
  const lines = repeated
    ? []
    : [
        `${verdictOf(outcome)} after ${outcome.iterations} iteration(s), ${formatUsd(outcome.costUsd)}: ${outcome.reason}`,
      ];
  if (outcome.worktreeEnd !== undefined) {
    lines.push(`worktree: ${outcome.worktreeEnd.detail}`);
    if (outcome.worktreeEnd.pullRequestUrl !== undefined) {
      lines.push(`pull request: ${outcome.worktreeEnd.pullRequestUrl}`);
    }
  } else if (outcome.worktree !== undefined) {
    lines.push(`worktree: ${outcome.worktree.path} (branch ${outcome.worktree.branch})`);
  }
  const effects = outcome.sideEffects;
  if (effects !== undefined && effects.performed.length + effects.skipped.length > 0) {
    const skipped =
      effects.skipped.length > 0 ? ` (already done: ${effects.skipped.join(", ")})` : "";
    lines.push(`GitHub: ${effects.performed.join(", ") || "nothing new"}${skipped}`);
  }
  if (outcome.refutedDeclarations > 0) {
    lines.push(`declarations refuted by the checks: ${outcome.refutedDeclarations}`);
  }
  for (const { iteration, validator } of outcome.flaky) {
    lines.push(`flaky check: ${validator} failed, then passed unchanged (iteration ${iteration})`);
  }
  for (const action of outcome.review?.pendingActions ?? []) {
    lines.push(`review asks: ${action}`);
  }
  for (const item of outcome.review?.checklist ?? []) lines.push(`review found not done: ${item}`);
  for (const warning of outcome.warnings) lines.push(`warning: ${warning}`);
  if (outcome.runDir !== "") lines.push(`run folder: ${outcome.runDir}`);
  return lines;
}

/** The batch summary: one row per issue (issue, status, iterations, cost, worktree). */
export function formatBatchTable(outcomes: readonly RunOutcome[]): string {
  const header = ["issue", "status", "iterations", "cost", "worktree"];
  const rows = outcomes.map((outcome) => [
    outcome.issue === undefined ? "-" : `#${outcome.issue}`,
    outcome.success
      ? outcome.status
      : outcome.status === "completed"
        ? "incomplete"
        : outcome.status,
    String(outcome.iterations),
    formatUsd(outcome.costUsd),
    worktreeCell(outcome),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const format = (row: readonly string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
  return [format(header), ...rows.map(format)].join("\n");
}

function worktreeCell(outcome: RunOutcome): string {
  if (outcome.worktreeEnd?.action === "merged") return `merged (${outcome.worktree?.branch ?? ""})`;
  if (outcome.worktreeEnd?.action === "pushed") return `pushed (${outcome.worktree?.branch ?? ""})`;
  if (outcome.worktree !== undefined) return outcome.worktree.path;
  return outcome.status === "error" ? (outcome.reason.split("\n")[0] ?? "") : "-";
}
