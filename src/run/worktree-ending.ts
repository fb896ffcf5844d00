/**
 * The end of a run's worktree in words (docs/worktrees-and-github.md#after-the-loop): what was
 * merged or pushed — and what a delivering run published (docs/queue.md#delivery) — or why it
 * was kept, and what was refused.
 */
import type { WorktreeOnSuccess } from "../ports/runner-config.js";
import type { FinishWorktreeResult } from "../workspace/index.js";
import { deliveredPullRequest, deliveredToBase, notDelivered } from "./delivered-work.js";
import type { WorktreeEnd } from "./run-options.js";

/** The worktree's end, and why closer refused to merge or push, when it did (docs/integrity.md#one-commit). */
export interface WorktreeEnding {
  readonly end: WorktreeEnd;
  /** What was refused and why, in words that follow "but". */
  readonly refused?: string;
}

/** The worktree's end in a sentence, naming the commit merged or pushed, or what was refused. */
export function endingOf(
  end: FinishWorktreeResult,
  how: {
    readonly commit: string | undefined;
    readonly onSuccess: WorktreeOnSuccess;
    readonly deliver: boolean;
  },
): WorktreeEnding {
  const { commit, onSuccess, deliver } = how;
  if (end.action === "merged") {
    const what = commit === undefined ? "" : `${commit} `;
    return {
      end: { action: "merged", detail: `merged ${what}into ${end.baseBranch} (${end.merge})` },
    };
  }
  if (end.action === "pushed") {
    const what = commit === undefined ? end.branch : `${commit} to ${end.branch}`;
    const already =
      end.alreadyThere === true ? " (there already: an earlier attempt pushed it)" : "";
    const url = end.pullRequestUrl;
    const delivered =
      url !== undefined
        ? deliveredPullRequest(url)
        : end.toBase === true && commit !== undefined
          ? deliveredToBase(commit, end.branch)
          : undefined;
    return {
      end: {
        action: "pushed",
        detail: `pushed ${what}${already}`,
        ...(url === undefined ? {} : { pullRequestUrl: url }),
        ...(delivered === undefined ? {} : { delivered }),
      },
    };
  }
  const detail = `${end.reason}; the work is in ${end.path}`;
  if (end.moved === undefined && deliver && onSuccess !== "keep") {
    return { end: { action: "kept", detail }, refused: notDelivered(end.reason) };
  }
  if (end.moved === undefined) return { end: { action: "kept", detail } };
  return {
    end: { action: "kept", detail },
    refused: `closer did not ${onSuccess} it: ${end.reason}`,
  };
}
