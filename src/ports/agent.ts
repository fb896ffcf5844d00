import type { Registry } from "./registry.js";
import type { BackendKind, RunnerConfig, SandboxMode } from "./runner-config.js";

/**
 * The resolved, immutable agent definition. Everything downstream reads these
 * types; nothing else touches the raw agent.json or steps_registry.json.
 * All defaults are applied by the loader, so no field here is "maybe unset"
 * unless absence itself means something.
 */

export interface ParameterDefinition {
  readonly name: string;
  readonly type: "string" | "number" | "boolean";
  readonly required: boolean;
  readonly default?: string | number | boolean;
  /** The CLI flag it is read from, e.g. `--issue`. */
  readonly flag: string;
  readonly description: string;
}

export interface ResolvedAgent {
  /** Folder name under `.agent/`. */
  readonly name: string;
  readonly description: string;
  /** Absolute path of `.agent/<name>/`, or of a run's definition snapshot. */
  readonly dir: string;
  /** Absolute paths of the two definition files (for messages). */
  readonly files: { readonly agentJson: string; readonly registry: string };
  readonly parameters: Readonly<Record<string, ParameterDefinition>>;
  readonly runner: RunnerConfig;
  readonly registry: Registry;
  /**
   * The command line's values `applyCliOverrides` put over the files, so the
   * agent loaded again from a run's definition snapshot gets them too.
   */
  readonly cliOverrides?: CliOverrides;
  /**
   * The files of the folder the agent was loaded from, read once, with their hash
   * (docs/integrity.md#definition-snapshot). Not enumerable: JSON output, deepFreeze
   * and a copy of the object leave it out, so a copy a caller changed carries none.
   */
  readonly definitionFiles?: DefinitionFiles;
}

/** One file of an agent folder. */
export interface DefinitionFile {
  /** Relative to the agent folder, `/`-separated. */
  readonly path: string;
  readonly content: Buffer;
  /** Permission bits, kept by a copy. */
  readonly mode: number;
}

/** Every file of an agent folder, sorted by path, and their hash. */
export interface DefinitionFiles {
  readonly files: readonly DefinitionFile[];
  /** sha256 (hex) over each file's path and content, in path order. */
  readonly hash: string;
  /** Symlinks left out because they lead out of the folder. */
  readonly skipped: readonly string[];
}

/**
 * Values given on the command line that replace agent.json's. Every field is
 * optional: an absent field leaves the file's value (or its default) alone.
 */
export interface CliOverrides {
  /** `--max-iterations N`: runner.maxIterations. */
  readonly maxIterations?: number;
  /** `--backend NAME`: runner.backend.kind. */
  readonly backend?: BackendKind;
  /** `--model M`: runner.backend.model. */
  readonly model?: string;
  /** `--runs-dir DIR` (absolute): runner.logging.runsDir. */
  readonly runsDir?: string;
  /** `--verbose`: runner.logging.verbose (only ever turns it on). */
  readonly verbose?: boolean;
  /** `--no-worktree` (false): runner.worktree.enabled (only ever turns it off). */
  readonly worktree?: boolean;
  /** `--sandbox auto|on|off`: runner.sandbox.mode. */
  readonly sandbox?: SandboxMode;
  /**
   * `--deliver` (a queued job, the GitHub Action): runner.worktree.deliver, and onSuccess
   * "push" unless agent.json sets it (docs/queue.md#delivery).
   */
  readonly deliver?: boolean;
}
