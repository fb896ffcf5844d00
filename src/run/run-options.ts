import type { AgentResult } from "../loop/index.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { Backend } from "../ports/backend.js";
import type { EventListener } from "../ports/events.js";
import type { GithubClient } from "../ports/github.js";
import type { Clock } from "../ports/loop-ports.js";
import type { Plugin } from "../ports/plugin.js";

/** closer's own environment (GITHUB_TOKEN, API keys): never the record's, never the model's to read back. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * What every kind of run (a written task, an issue, a batch of issues) is
 * given. Every default is resolved in one place, `resolveRunBase`.
 */
export interface RunBaseOptions {
  /**
   * The agent, with the command line's overrides already applied (applyCliOverrides).
   * runTask, runIssue and resumeRun load it again from the run's copy of its
   * folder with those overrides (docs/integrity.md#definition-snapshot): other
   * changes made to the object are not used.
   */
  readonly agent: ResolvedAgent;
  /** The project folder that holds `.agent/` (the main checkout). */
  readonly cwd: string;
  /** The backend; default: the one agent.json configures (makeBackend). */
  readonly backend?: Backend;
  /** The backend used when agent.json says `kind: "scripted"`. */
  readonly scripted?: Backend;
  /** Agent parameter values given on the command line. */
  readonly args?: Readonly<Record<string, unknown>>;
  /** Where run folders go; default agent.json's `logging.runsDir`, else `<git dir>/closer/runs`. Relative to `cwd`. */
  readonly runsDir?: string;
  /** Id of a new run (default: made from the clock). */
  readonly runId?: string;
  readonly clock?: Clock;
  /** Aborting ends the run with status `aborted`; the record and the worktree are kept. */
  readonly signal?: AbortSignal;
  /** Every event of the run, including the side effects after it. */
  readonly onEvent?: EventListener;
  /** closer's environment: GITHUB_TOKEN, GITHUB_API_URL; its secrets never reach the record. Default process.env. */
  readonly env?: Environment;
  /** False (`--no-worktree`): work in `cwd` itself, never in a worktree. */
  readonly worktree?: boolean;
  /** Branch of the run's worktree (`--branch`); default from `runner.worktree.branch`. */
  readonly branch?: string;
  /** Branch the work starts from and merges into (`--base-branch`); default the current branch. */
  readonly baseBranch?: string;
  /**
   * Runs git operations on the repository's shared state (creating and
   * merging worktrees) one at a time; a batch passes one for all its runs.
   */
  readonly serialize?: Serializer;
  /**
   * Hooks at the loop's seams and ports that replace the loop's own, called in this order
   * (docs/plugins.md). A plugin's throw is recorded; it ends the run only when the plugin is
   * `required` or the port it replaces is needed for an answer.
   */
  readonly plugins?: readonly Plugin[];
}

/** Options of a run that talks to GitHub. */
export interface GithubRunOptions {
  /** `owner/name` of the repository; default: read from the `origin` remote. */
  readonly repo?: string;
  /** The GitHub client; default: one for the repository, from GITHUB_TOKEN and GITHUB_API_URL. */
  readonly github?: GithubClient;
}

/** Runs one task at a time. */
export type Serializer = <T>(task: () => Promise<T>) => Promise<T>;

/** What happened to the run's worktree after the run. */
export interface WorktreeEnd {
  readonly action: "merged" | "pushed" | "kept";
  /** One sentence: where it was merged, or why it was kept. */
  readonly detail: string;
  readonly pullRequestUrl?: string;
  /** What a delivering run published, as the completion comment names it (docs/queue.md#delivery). */
  readonly delivered?: string;
}

/** The GitHub side effects of this attempt. */
export interface SideEffectsReport {
  readonly performed: readonly string[];
  /** Done by an earlier attempt of the same run, so not repeated. */
  readonly skipped: readonly string[];
  readonly failed?: { readonly key: string; readonly message: string };
}

/**
 * How a run ended, with what closer did after the loop. `success` is true
 * only when the work was verified and every side effect went through.
 */
export interface RunOutcome extends AgentResult {
  /** The issue of an issue run. */
  readonly issue?: number;
  readonly worktreeEnd?: WorktreeEnd;
  readonly sideEffects?: SideEffectsReport;
}
