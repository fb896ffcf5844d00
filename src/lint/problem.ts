import { isAbsolute, relative } from "node:path";
import { formatJsonPath } from "../definition/json-path.js";
import { type CloserError, CloserErrorList } from "../errors.js";

/** One thing a check found wrong (error) or worth a look (warning). */
export interface Problem {
  readonly agent: string;
  readonly severity: "error" | "warning";
  /** Relative to the folder the report is shown from. */
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  /** JSON path inside the file; "" for a whole file or a template. */
  readonly jsonPath: string;
  readonly message: string;
  readonly fix?: string;
}

/** Where a problem is: an absolute (or already relative) file, a JSON path, a line. */
export interface ProblemPlace {
  readonly file: string;
  readonly jsonPath?: string;
  readonly line?: number;
  readonly column?: number;
}

/** Collects every problem of one agent instead of stopping at the first. */
export interface ProblemCollector {
  readonly problems: readonly Problem[];
  error(place: ProblemPlace, message: string, fix?: string): void;
  warning(place: ProblemPlace, message: string, fix?: string): void;
  /** Adds a CloserError (each problem of a CloserErrorList), with an optional note on the message. */
  addError(error: CloserError, fallback: ProblemPlace, note?: string): void;
}

export function makeProblemCollector(agent: string, cwd: string): ProblemCollector {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const add = (
    severity: Problem["severity"],
    place: ProblemPlace,
    message: string,
    fix: string | undefined,
  ): void => {
    const problem: Problem = {
      agent,
      severity,
      file: displayPath(cwd, place.file),
      ...(place.line === undefined ? {} : { line: place.line }),
      ...(place.column === undefined ? {} : { column: place.column }),
      jsonPath: place.jsonPath ?? "",
      message,
      ...(fix === undefined ? {} : { fix }),
    };
    const key = formatProblem(problem);
    if (seen.has(key)) return;
    seen.add(key);
    problems.push(problem);
  };
  const collector: ProblemCollector = {
    problems,
    error: (place, message, fix) => add("error", place, message, fix),
    warning: (place, message, fix) => add("warning", place, message, fix),
    addError: (error, fallback, note) => {
      const errors = error instanceof CloserErrorList ? error.problems : [error];
      for (const each of errors) {
        const { file, jsonPath, line, column, fix } = each.fields;
        const place: ProblemPlace = {
          file: file ?? fallback.file,
          ...(jsonPath === undefined ? pick(fallback, file) : { jsonPath }),
          ...(line === undefined ? {} : { line }),
          ...(line === undefined || column === undefined ? {} : { column }),
        };
        add("error", place, note ? `${each.message} ${note}` : each.message, fix);
      }
    },
  };
  return collector;
}

function pick(fallback: ProblemPlace, file: string | undefined): { jsonPath?: string } {
  // The fallback's JSON path only makes sense in the fallback's own file.
  if (fallback.jsonPath === undefined || (file !== undefined && file !== fallback.file)) return {};
  return { jsonPath: fallback.jsonPath };
}

/** `file[:line]: jsonPath: message (fix: …)`, warnings marked as such. */
export function formatProblem(problem: Problem): string {
  const column = problem.column === undefined ? "" : `:${problem.column}`;
  const where = `${problem.file}${problem.line === undefined ? "" : `:${problem.line}${column}`}`;
  const path = problem.jsonPath === "" ? "" : ` ${problem.jsonPath}:`;
  const severity = problem.severity === "warning" ? " warning:" : "";
  const fix = problem.fix === undefined ? "" : ` (fix: ${problem.fix})`;
  return `${where}:${path}${severity} ${problem.message}${fix}`;
}

function displayPath(cwd: string, file: string): string {
  if (!isAbsolute(file)) return file;
  const shown = relative(cwd, file);
  return shown === "" ? "." : shown;
}

/** `steps["initial.issue"]`, `validators.lint` — written the way the loader writes JSON paths. */
export function keyPath(container: string, key: string): string {
  return formatJsonPath([container, key]);
}
