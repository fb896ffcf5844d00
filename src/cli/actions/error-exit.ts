import { isCloserError } from "../../errors.js";
import { exitCodeOfError } from "../../run/exit-code.js";

/**
 * A command's CloserError said on stderr, and the exit code it means (docs/cli.md#exit-codes);
 * anything else is a bug and is thrown on.
 */
export function exitCodeAfterError(error: unknown): number {
  if (!isCloserError(error)) throw error;
  process.stderr.write(`closer: ${error.describe()}\n`);
  return exitCodeOfError(error);
}
