/**
 * The whole architecture in one file: the small ports through which the loop
 * asks the outside world for things. Implementations live in backends/,
 * validators/, record/, prompts/ and github/; tests swap only what is outside
 * the machine (the model, GitHub).
 */

import type { Backend } from "./backend.js";
import type { EventListener, RunEvent } from "./events.js";
import type { FileSnapshot, ProtectedFingerprint, TreeChanges } from "./files.js";
import type { LaunchWrapper, ProcessKind } from "./process.js";
import type { PromptRenderer, RetryPromptBuilder } from "./prompts.js";
import type { OutputSchemaRef } from "./registry.js";
import type { RunState } from "./run-state.js";
import type { BackendConfig, JsonSchema } from "./runner-config.js";
import type { ValidatorRunner } from "./validator.js";

// ── Record ─────────────────────────────────────────────────────────────────

/**
 * The run folder. Writes happen in the order they are asked for. The loop
 * waits only for `saveState` (and the final event): an implementation reports
 * a failed event, prompt or transcript write at the latest by rejecting the
 * next `saveState`.
 */
export interface RecordSink {
  readonly runDir: string;
  /** Resolves once the event is written. */
  emit(event: RunEvent): Promise<void>;
  /**
   * Rewrite run.json atomically (it is where a resumed run starts); the state of
   * an ended run also durably.
   */
  saveState(state: RunState): Promise<void>;
  /**
   * Keep an iteration's prompt (and, separately, its transcript). `label` names
   * an extra query of the same iteration (e.g. `closure-review`).
   */
  savePrompt(iteration: number, prompt: string, label?: string): Promise<void>;
  saveTranscript(iteration: number, transcript: readonly unknown[], label?: string): Promise<void>;
  /**
   * Keep what an iteration changed in the work tree, a unified diff or a note of why there is
   * none (docs/record.md#diffs). A failed write rejects this call only: it never fails the run.
   */
  saveDiff?(iteration: number, diff: string): Promise<void>;
  /** Resolves once everything asked for is written; rejects if a write failed. */
  flush?(): Promise<void>;
}

// ── Clock ──────────────────────────────────────────────────────────────────

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with an AbortError when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  randomId(): string;
  /** A number in [0, 1), for the jitter of waits. */
  random(): number;
}

// ── The loop's ports, together ─────────────────────────────────────────────

/** Everything the loop reaches the outside world through, made once per run. */
export interface LoopPorts {
  readonly backend: Backend;
  /** Makes the backend a closure review names (docs/completion.md#closure-review). */
  readonly reviewBackend?: (config: BackendConfig) => Promise<Backend>;
  readonly record: RecordSink;
  readonly clock: Clock;
  readonly listener?: EventListener;
  /** Resolves a step's output schema (cached per run). */
  readonly resolveSchema: (ref: OutputSchemaRef) => Promise<JsonSchema>;
  /** Renders a prompt from the agent's templates (each read and compiled once per run). */
  readonly promptResolver: PromptRenderer;
  /** Builds the retry prompt of a failed check (docs/retry.md#retry-prompt). */
  readonly retryPromptBuilder: RetryPromptBuilder;
  /** Reads a file that may not exist (the decision file). */
  readonly readFile: (path: string) => Promise<FileSnapshot | undefined>;
  readonly validatorRunner: ValidatorRunner;
  readonly schemaValidators: SchemaChecker;
  /** Looks at the tree for the integrity guards (docs/integrity.md). */
  readonly integrity: IntegrityProbe;
  /** The run's OS sandbox, when it is on (docs/sandbox.md). */
  readonly sandbox?: SandboxPort;
  /** Where the checks judge the work, in git (docs/integrity.md#clean-room); absent: in the tree. */
  readonly checksRoom?: ChecksRoomPort;
}

/** The run's clean room as the loop uses it (docs/integrity.md#clean-room). */
export interface ChecksRoomPort {
  /** The ignored entries of the tree linked into the room, as its first phase found them. */
  readonly kept: readonly string[];
  /**
   * Makes the room hold the work as git sees it now, on the commit `work` names (HEAD, read as
   * the checks started; read now without it); with the tree of `work`, a tree closer wrote of it
   * before (a resumed run's baseline) instead.
   */
  rebuild(signal?: AbortSignal, work?: WorkToCheck): Promise<RoomView>;
}

/** The commit the checks start on, and the work's tree when closer wrote it before. */
export interface WorkToCheck {
  readonly commit: string;
  readonly tree?: string;
}

/** The work as closer's git wrote it: a tree object, and the commit HEAD named then. */
export interface FixedWork {
  readonly commit: string;
  readonly tree: string;
}

/** One rebuild of the clean room: where the checks run, and what they see. */
export interface RoomView {
  /** The folder the checks run in: the run's folder inside the room (absolute). */
  readonly cwd: string;
  /** The git tree the room holds: the work as git saw it when the room was made. */
  readonly tree: string;
  /** The room's files (and its git files) that changed since it was made: what the checks wrote. */
  readWrites(): Promise<string[]>;
}

/**
 * The run's OS sandbox as the loop uses it (docs/sandbox.md#how-it-runs): entered before a
 * query or a check, left after it, so what the sandbox puts in the tree while a process runs
 * is gone before closer looks at the tree.
 */
export interface SandboxPort {
  enter(kind: ProcessKind): Promise<SandboxEntry>;
  /** What the sandbox refused a kind's processes since the last call, one line each. */
  takeRefusals(kind: ProcessKind): Promise<string[]>;
}

/** One query's or one check's stay in the sandbox. */
export interface SandboxEntry {
  /** Starts a process inside the sandbox. */
  readonly wrapper: LaunchWrapper;
  /** The run's scratch folder: the one place outside the tree its processes may write. */
  readonly tempDir: string;
  /** Called once the processes ended: what the sandbox refused them is judged and kept. */
  leave(): Promise<void>;
  /**
   * Aborted once the sandbox refused the entry's processes a connection that counts, its reason
   * naming the host and the setting that allows it: the query under way is stopped
   * (docs/sandbox.md#refused-connection).
   */
  readonly refused?: AbortSignal;
}

/** What the integrity guards read from the working tree. */
export interface IntegrityProbe {
  /** The protected paths with their content hashes, as they are now. */
  fingerprintProtected(): Promise<ProtectedFingerprint>;
  /** Only the definition's protected paths: the agent folder and the run's snapshot. */
  fingerprintDefinition(): Promise<ProtectedFingerprint>;
  /** Whether a path of a fingerprint is the definition's. */
  isDefinitionPath(path: string): boolean;
  /** Files with uncommitted changes (none outside git). */
  listDirtyFiles(): Promise<readonly string[]>;
  /** The commit HEAD names ("" outside git or before the first commit). */
  readHeadCommit(): Promise<string>;
  /**
   * What changed since a commit, uncommitted and untracked files included (none outside git);
   * with `tree`, up to that tree object of closer's, its blobs hashed again
   * (docs/integrity.md#clean-room).
   */
  readChangesSince(commit: string, tree?: string): Promise<TreeChanges>;
  /**
   * Keeps the work tree as it is now as the start of the next `readDiffSinceKept`, unless a tree
   * is kept already (docs/record.md#diffs); nothing outside git.
   */
  keepTree?(): Promise<void>;
  /**
   * The diff from the tree kept last to the work tree now, which is kept instead: what an
   * iteration changed (docs/record.md#diffs). `now`: the work's tree when one was written of it
   * already (the clean room's), so none is written again.
   */
  readDiffSinceKept?(now?: string): Promise<TreeDiff>;
  /**
   * The work tree as it is now, as a tree object written with closer's own index: the end of an
   * iteration's diff, fixed before the model can change it (docs/record.md#diffs); undefined
   * outside git. A probe without it keeps no diffs.
   */
  writeWorkTree?(): Promise<string | undefined>;
  /** A digest of the working tree's content: equal digests, unchanged tree. */
  readTreeFingerprint(): Promise<string>;
  /**
   * `readHeadCommit` and `readTreeFingerprint` in one read of git (its `git status` names HEAD's
   * commit): what a declaration's checks start on (docs/integrity.md#one-commit). `tree` is
   * absent outside git.
   */
  readHeadAndTree?(): Promise<{ readonly commit: string; readonly tree?: string }>;
  /**
   * Keeps the repository's git configuration, hooks and `info/` as they are now (once per
   * process) and returns their hashes; none outside git (docs/integrity.md#git-state).
   */
  recordGitState(): Promise<Readonly<Record<string, string>>>;
  /** Puts back what changed in the git state since it was recorded; returns each change as `<path> (<how>)`. */
  restoreGitState(): Promise<string[]>;
}

/** A diff between two trees of the work, or why there is none: no tree kept before, no git. */
export type TreeDiff =
  | { readonly kind: "diff"; readonly diff: string }
  | { readonly kind: "no-start" }
  | { readonly kind: "no-git" };

// ── GitHub ─────────────────────────────────────────────────────────────────

/** One schema violation, located by its JSON pointer in the checked value. */
export interface SchemaProblem {
  /** JSON pointer into the value, `""` for the root. */
  readonly instancePath: string;
  readonly message: string;
}

export interface SchemaCheck {
  readonly valid: boolean;
  readonly problems: readonly SchemaProblem[];
  /** The first few problems in one line, when not valid. */
  readonly error?: string;
}

/** Checks values against JSON Schemas, compiling each schema once (one per run). */
export interface SchemaChecker {
  check(value: unknown, schema: JsonSchema): SchemaCheck;
}
