/**
 * How a usage error reads (docs/cli.md#unknown-options): one line, commander's suggestion on it,
 * `closer: ` before it as every error of closer's.
 */

/** commander's `error: unknown option '--taks'\n(Did you mean --task?)` as that one line. */
export function oneLineUsage(message: string): string {
  return message
    .trim()
    .replace(/^error: /, "")
    .replace(/\n\(Did you mean /g, " (did you mean ");
}
