import { constants } from "node:os";
import { exitCodeFor, GithubError, isCloserError } from "../errors.js";
import type { RunOutcome } from "./run-options.js";

/** closer's exit codes (docs/cli.md#exit-codes). */
export const EXIT_CODES = {
  completed: 0,
  notCompleted: 1,
  usage: 2,
  backend: 3,
  interrupted: 130,
} as const;

/**
 * Exit code of a run: 0 completed (and every side effect done); 128 + n
 * when signal n ended it (130 for Ctrl-C, or when the signal is not named); 2 a configuration or usage
 * error found during the run; 3 an unrecoverable backend error
 * (authentication, a backend that keeps failing); 1 any other end without
 * verified completion — an `aborted` run that no signal stopped
 * (`onFailure: abort`) and a run whose record could no longer be written
 * (docs/record.md#record-failure) included.
 */
export function exitCodeOfOutcome(
  outcome: RunOutcome,
  context: { readonly interrupted: boolean; readonly signal?: string } = { interrupted: false },
): number {
  if (outcome.status === "completed") {
    return outcome.success ? EXIT_CODES.completed : EXIT_CODES.notCompleted;
  }
  if (outcome.status === "aborted") {
    if (!context.interrupted) return EXIT_CODES.notCompleted;
    return context.signal === undefined ? EXIT_CODES.interrupted : exitCodeOfSignal(context.signal);
  }
  // A record that failed mid-run: the run did not complete, nothing about it was misused.
  if (outcome.status === "error" && outcome.errorCode === "record_error") {
    return EXIT_CODES.notCompleted;
  }
  if (outcome.status === "error" && outcome.errorCode !== undefined) {
    return exitCodeFor(outcome.errorCode);
  }
  return EXIT_CODES.notCompleted;
}

/**
 * Exit code of an error thrown before or around a run. GitHub answers are
 * split by what fixes them: 401 (bad token), 404 (wrong issue or
 * repository, or no access) and 403 (missing permission) are configuration
 * (2); a rate limit, a server error or an unreachable server is transient,
 * the run simply did not happen (1).
 */
export function exitCodeOfError(error: unknown): number {
  if (!isCloserError(error)) return EXIT_CODES.notCompleted;
  if (error instanceof GithubError && error.transient) return EXIT_CODES.notCompleted;
  return exitCodeFor(error.code);
}

/** 128 + the signal's number, as a shell reports a process the signal ended (SIGHUP 129, SIGTERM 143). */
export function exitCodeOfSignal(signal: string): number {
  const number = constants.signals[signal as NodeJS.Signals];
  return number === undefined ? EXIT_CODES.interrupted : 128 + number;
}
