/** A file's text and when it was last written. */
export interface FileSnapshot {
  readonly text: string;
  readonly modifiedAtMs: number;
  /**
   * Set when something is at the path but closer would not read it (a
   * symbolic link, a folder, a FIFO, a file over the size cap): `text` is then
   * empty and this says why, as a stable code and a sentence.
   */
  readonly refused?: { readonly reason: string; readonly detail: string };
}

/** One changed file and its unified diff. */
export interface FileChange {
  /** Path relative to the working tree's top folder. */
  readonly path: string;
  readonly diff: string;
}

/** The changes since a commit: a `git diff --stat` and each file's diff. */
export interface TreeChanges {
  readonly stat: string;
  readonly files: readonly FileChange[];
}

/** What a run protects from the model (docs/integrity.md#protected-paths). */
export interface ProtectedSet {
  /** The working tree the globs are relative to. */
  readonly workTree: string;
  /** Globs relative to the working tree; a pattern starting with `!` takes paths out. */
  readonly globs: readonly string[];
  /** Folders protected whole (absolute): the agent folder, the run's definition snapshot. */
  readonly folders: readonly string[];
  /** package.json scripts the checks run (compared entry by entry, not the whole file). */
  readonly packageScripts: readonly string[];
  /** Dependency bin folders (relative to the working tree) whose executables are compared one by one. */
  readonly binFolders?: readonly string[];
}

/** Each protected path (relative to the working tree when inside it) with the hash of its content. */
export type ProtectedFingerprint = Readonly<Record<string, string>>;
