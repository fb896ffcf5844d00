/** What a run of the corpus is (docs/replay.md#corpus): its name, its end, and how it is made. */
export interface RecordedRunRecipe {
  readonly name: string;
  /** The terminal state the run ends in (of its last attempt). */
  readonly status: string;
  /** Makes the run with its runs folder at `runsDir`; returns its run id. */
  record(runsDir: string): Promise<string>;
}

/** A stable run id per corpus run, so regenerating it changes no names. */
export function runIdOf(name: string): string {
  return `20300101-000000-${name.replaceAll("-", "").slice(0, 6)}`;
}
