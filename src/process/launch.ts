/**
 * A program as closer starts it, and the one place a run's OS sandbox
 * (docs/sandbox.md) changes it: the sandbox's wrapper turns the launch into
 * one that runs the same program inside the sandbox.
 */

/** The file, its arguments and its whole environment. */
export interface Launch {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Runs a launch inside an OS sandbox; called once per process started. */
export type LaunchWrapper = (launch: Launch) => Launch;
