/** The file, its arguments and its whole environment. */
export interface Launch {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where it starts; the process's own folder when absent. */
  readonly cwd?: string;
}

/** Runs a launch inside an OS sandbox; called once per process started. */
export type LaunchWrapper = (launch: Launch) => Launch;

/** The kinds of processes that run the model's code, each with an environment of its own. */
export type ProcessKind = "backend" | "validators";

export const PROCESS_KINDS: readonly ProcessKind[] = ["backend", "validators"];

/** The environment each kind of process starts from (closer adds its CLOSER_* variables on top). */
export type ChildEnvironments = Readonly<Record<ProcessKind, Readonly<Record<string, string>>>>;
