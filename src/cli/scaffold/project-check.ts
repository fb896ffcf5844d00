/** What `closer init` reads from a project: the checks it could run, and what it noticed (docs/cli.md#init). */

/** The kinds of check the scaffolded agent knows; each becomes one validator. */
export const CHECK_ROLES = ["test", "typecheck", "lint"] as const;

export type CheckRole = (typeof CHECK_ROLES)[number];

/** The extractors that read findings out of a check's output (docs/completion.md#extract-params). */
export type FindingsParser = "parseTestOutput" | "parseTypeErrors" | "parseLintErrors";

/** A command the project surely has, and how to read its failures. */
export interface ProjectCheck {
  readonly role: CheckRole;
  readonly command: string;
  /** Where in the project it was read from, e.g. `package.json scripts.test`. */
  readonly source: string;
  /** The extractor of its findings when closer has one for the tool; absent: the output alone. */
  readonly parser?: FindingsParser;
}

/** Something the project has that closer did not make a check of, and why. */
export interface SkippedCheck {
  readonly what: string;
  readonly why: string;
}

/** What one kind of project (npm, pytest, go, …) contributes. */
export interface ProjectFindings {
  /** One line per thing found, e.g. `package.json (pnpm, from pnpm-lock.yaml)`. */
  readonly found: readonly string[];
  /** Candidates, best first; the first of each role is chosen. */
  readonly checks: readonly ProjectCheck[];
  readonly skipped: readonly SkippedCheck[];
}

/** Reads a file of the project by its path relative to the project folder; undefined when absent. */
export type ReadProjectFile = (path: string) => Promise<string | undefined>;

export const NO_FINDINGS: ProjectFindings = { found: [], checks: [], skipped: [] };
