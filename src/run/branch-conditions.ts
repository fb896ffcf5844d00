import type { Declaration } from "../loop/index.js";
import type { ExternalCondition } from "../ports/declaration.js";
import { commitAll, countCommitsAhead, isClean, listChangedFiles } from "../workspace/index.js";

/** The work of a run on its own branch: the facts completion needs, and the auto-commit. */
export interface BranchWork {
  /** The work is committed on the task branch, and the tree is clean (docs/completion.md#external-conditions). */
  readonly conditions: readonly ExternalCondition[];
  /**
   * The loop's `beforeChecks`: keeps the declaration and, with autoCommit,
   * commits whatever the model left uncommitted, with a message from its summary.
   */
  beforeChecks(declaration: Declaration): Promise<void>;
}

export interface BranchWorkOptions {
  /** The run's working tree. */
  readonly workTree: string;
  /** The revision the work is measured against (the base branch, or the commit the run started from). */
  readonly baseRevision: string;
  readonly autoCommit: boolean;
  /** Names the issue in the commit message. */
  readonly issue?: number;
}

const SUBJECT_MAX_CHARS = 72;

/** External conditions of a run on a branch, and closer's commit of the model's leftovers. */
export function makeBranchWork(options: BranchWorkOptions): BranchWork {
  let declared: Declaration | undefined;
  const commitLeftovers = async (): Promise<void> => {
    if (!options.autoCommit || (await isClean(options.workTree))) return;
    await commitAll(options.workTree, commitMessage(declared?.summary, options.issue));
  };
  const committed: ExternalCondition = {
    name: "work committed on the task branch",
    check: async () => {
      await commitLeftovers();
      const ahead = await countCommitsAhead(options.workTree, "HEAD", options.baseRevision);
      return ahead > 0
        ? { ok: true }
        : {
            ok: false,
            detail: `no commit on the branch beyond ${options.baseRevision}; commit your work`,
          };
    },
  };
  const clean: ExternalCondition = {
    name: "working tree clean",
    check: async () => {
      if (await isClean(options.workTree)) return { ok: true };
      const files = await listChangedFiles(options.workTree);
      const shown = files.slice(0, 10).join(", ");
      const more = files.length > 10 ? ` (+${files.length - 10} more)` : "";
      return { ok: false, detail: `uncommitted changes: ${shown}${more}; commit or remove them` };
    },
  };
  return {
    conditions: [committed, clean],
    beforeChecks: async (declaration) => {
      declared = declaration;
      await commitLeftovers();
    },
  };
}

/** First line: the summary's first line, cut; then the whole summary. */
export function commitMessage(summary: string | undefined, issue?: number): string {
  const text = summary?.trim() ?? "";
  const reference = issue === undefined ? "" : ` (#${issue})`;
  if (text === "") return `Commit the agent's remaining changes${reference}`;
  const firstLine = text.split(/\r?\n/)[0]?.trim() ?? text;
  const room = SUBJECT_MAX_CHARS - reference.length;
  const subject =
    firstLine.length > room ? `${firstLine.slice(0, room - 3).trimEnd()}...` : firstLine;
  const body = text === subject ? "" : `\n\n${text}`;
  return `${subject}${reference}${body}\n\nCommitted by closer (autoCommit).`;
}
