/** A failed test as a retry prompt needs it. */
export interface FailedTest {
  /** The runner's own name of the test, with its suite path joined by ` > ` where the runner prints one. */
  readonly name: string;
  /** The first meaningful line(s) of the failure message; empty when the runner printed none. */
  readonly error: string;
  /** The test file, when the runner names it next to the failure. */
  readonly file?: string;
}

/** Joins a suite path the way every parser reports it. */
export const SUITE_SEPARATOR = " > ";

const MAX_ERROR_LINES = 4;
const MAX_ERROR_CHARS = 600;

/** Lines after which a failure message has turned into stack, source or diff. */
const STOP_PATTERNS: readonly RegExp[] = [
  /^\s*at\s/, // stack frame
  /^\s*❯\s/, // vitest source location
  /^\s*>?\s*\d+\s*\|/, // code frame
  /^\s*\|/,
  /^\s*- Expected\b/, // vitest / jest diff header
  /^\s*\+ Received\b/,
  /^\s*\+ expected - actual\s*$/, // mocha diff header
  /^\s*stack backtrace:/,
  /^\s*note: /,
  /^\s*-{3,}\s*$/,
];

/** A caret or tilde line points into the source line printed just before it. */
const SOURCE_POINTER = /^\s*[\^~]+\s*$/;

/** The first meaningful lines of a failure message: no stack, code frame or diff. */
export function summarizeError(lines: readonly string[]): string {
  const kept: string[] = [];
  for (const line of lines) {
    if (SOURCE_POINTER.test(line)) {
      kept.pop();
      break;
    }
    if (STOP_PATTERNS.some((pattern) => pattern.test(line))) break;
    const text = line.trim();
    if (text === "") continue;
    kept.push(text);
    if (kept.length === MAX_ERROR_LINES) break;
  }
  const error = kept.join("\n");
  return error.length > MAX_ERROR_CHARS ? `${error.slice(0, MAX_ERROR_CHARS)}…` : error;
}

/** Removes a trailing duration such as `(12ms)`, `(0.5 ms)`, `(1.2s)` or `(522µs)`. */
export function stripDuration(name: string): string {
  return name.replace(/\s*\(\d+(?:\.\d+)?\s*(?:ms|s|µs|us|ns|m)\)\s*$/, "").trim();
}
