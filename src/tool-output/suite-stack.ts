/** The suites around a line of an indented test listing, read top to bottom. */
import { SUITE_SEPARATOR } from "./failed-test.js";

export interface SuiteEntry {
  readonly indent: number;
  readonly name: string;
}

/** Forgets the suites a line at `indent` is no longer inside (those at `indent` or deeper). */
export function leaveSuites(stack: SuiteEntry[], indent: number): void {
  while ((stack.at(-1)?.indent ?? -1) >= indent) stack.pop();
}

/** The full name of a test inside the suites of the stack, after an optional prefix (a file). */
export function nameInSuites(stack: readonly SuiteEntry[], name: string, prefix?: string): string {
  const parts = [...(prefix ? [prefix] : []), ...stack.map((entry) => entry.name), name];
  return parts.join(SUITE_SEPARATOR);
}

/** Leading spaces of a line. */
export function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
