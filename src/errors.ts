/**
 * The one error base of closer. Misuse and configuration problems throw a
 * CloserError before any model call; run outcomes (a failing test, a spent
 * budget) are values, never exceptions.
 */
export type CloserErrorCode =
  | "not_found"
  | "parse_error"
  | "validation_error"
  | "config_error"
  | "usage_error"
  | "backend_error"
  | "auth_error"
  | "github_error"
  | "workspace_error"
  | "lock_error"
  | "record_error"
  | "plugin_error"
  | "internal_error";

export interface CloserErrorFields {
  /** File the problem is in, when there is one. */
  file?: string;
  /** JSON path inside the file, e.g. `steps["initial.issue"].next`. */
  jsonPath?: string;
  /** 1-based line and column for syntax errors. */
  line?: number;
  column?: number;
  /** What was expected, in a few words. */
  expected?: string;
  /** What was found instead. */
  found?: string;
  /** How to fix it, in one sentence. */
  fix?: string;
  /** Long detail (captured output, stack) kept for the record, not the terminal. */
  detail?: string;
  cause?: unknown;
}

/** Exit code for the CLI: 2 for usage/configuration, 3 for unrecoverable backend errors. */
export function exitCodeFor(code: CloserErrorCode): number {
  if (code === "backend_error" || code === "auth_error") return 3;
  if (code === "internal_error") return 1;
  return 2;
}

export class CloserError extends Error {
  readonly code: CloserErrorCode;
  readonly fields: CloserErrorFields;

  constructor(code: CloserErrorCode, message: string, fields: CloserErrorFields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = "CloserError";
    this.code = code;
    this.fields = fields;
  }

  /** The short message for the terminal: where, what, and how to fix it. */
  describe(): string {
    const { file, jsonPath, line, column, fix } = this.fields;
    const position =
      line === undefined ? "" : `:${line}${column === undefined ? "" : `:${column}`}`;
    const where = file ? `${file}${position}${jsonPath ? ` at ${jsonPath}` : ""}: ` : "";
    return `${where}${this.message}${fix ? `\n  fix: ${fix}` : ""}`;
  }
}

/** A group of problems reported together (`closer validate` reports every one). */
export class CloserErrorList extends CloserError {
  readonly problems: readonly CloserError[];

  constructor(problems: readonly CloserError[]) {
    const first = problems[0];
    super(first?.code ?? "validation_error", `${problems.length} problem(s) found`, first?.fields);
    this.name = "CloserErrorList";
    this.problems = problems;
  }

  override describe(): string {
    return this.problems.map((problem) => problem.describe()).join("\n");
  }
}

/** What GitHub answered, typed so callers decide without reading the message. */
export interface GithubAnswer {
  /** HTTP status of GitHub's failed answer; absent without one (no answer, a GraphQL error). */
  readonly status?: number;
  /** Trying again later may succeed: a rate limit, a server error (5xx), or no answer at all. */
  readonly transient: boolean;
}

/** Every failure of the GitHub module: code `github_error`, with what GitHub answered. */
export class GithubError extends CloserError {
  readonly status?: number;
  readonly transient: boolean;

  constructor(message: string, answer: GithubAnswer, fields: CloserErrorFields = {}) {
    super("github_error", message, fields);
    this.name = "GithubError";
    this.status = answer.status;
    this.transient = answer.transient;
  }
}

export function isCloserError(value: unknown): value is CloserError {
  return value instanceof CloserError;
}

/**
 * A count or number given by the user (`--max-iterations`, `--issue`,
 * `--concurrency`): a whole number of at least 1, else a usage error naming
 * the flag. Text is read as a number first, so the command line and library
 * callers are held to the same rule.
 */
export function wholeNumberAtLeastOne(flag: string, value: number | string): number {
  const number =
    typeof value === "number" ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (Number.isSafeInteger(number) && number >= 1) return number;
  throw new CloserError("usage_error", `${flag} must be a whole number of at least 1`, {
    expected: "a whole number of at least 1",
    found: JSON.stringify(value),
    fix: `pass e.g. ${flag} 2`,
  });
}
