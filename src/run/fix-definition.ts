import { withCliOverrides } from "../definition/apply-cli-overrides.js";
import { type DefinitionFiles, readDefinitionFiles } from "../definition/definition-files.js";
import { loadAgent } from "../definition/load-agent.js";
import { relocateAgent } from "../definition/relocate-agent.js";
import { CloserError, isCloserError } from "../errors.js";
import type { DefinitionStart } from "../loop/index.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { DefinitionStamp, RunState } from "../ports/run-state.js";
import {
  definitionSnapshotDir,
  readRecordedDefinitionHash,
  writeDefinitionSnapshot,
} from "../record/definition-snapshot.js";
import { recordWriteError } from "../record/record-write-error.js";
import type { RunBase } from "./run-base.js";

/** The definition a run works from, fixed when it starts. */
export interface FixedDefinition {
  /** The agent loaded from the run's snapshot, with the command line's overrides. */
  readonly agent: ResolvedAgent;
  readonly definition: DefinitionStart;
  /** A changed agent folder, symlinks left out of the snapshot. */
  readonly warnings: readonly string[];
}

export interface FixDefinitionOptions {
  readonly runDir: string;
  /** run.json of a resumed run. */
  readonly resumed?: RunState;
  /** With `resumed`: a new snapshot from the agent folder instead of the run's own (`--reload-definition`). */
  readonly reload?: boolean;
}

/**
 * Fixes the definition a run works from (docs/integrity.md#definition-snapshot):
 * a new run copies the agent folder into its run folder; a resumed run checks
 * its copy against its record and keeps it (docs/integrity.md#resume), or
 * copies the folder anew when told to reload. The copy is written from the
 * files the caller's agent was loaded from, and that agent, moved into the
 * copy, is the run's; a resumed run's agent is loaded from the files of its
 * copy that were hashed. Either way its prompts, schemas and validator modules
 * are the copy's. A resumed run's agent gets the static checks (a new run's
 * had them already).
 */
export async function fixDefinition(
  base: RunBase,
  options: FixDefinitionOptions,
): Promise<FixedDefinition> {
  const { resumed, runDir } = options;
  const fixed =
    resumed === undefined
      ? await takeSnapshot(base, runDir, { how: "taken" })
      : resumed.definition === undefined
        ? await takeSnapshot(base, runDir, {
            how: "taken",
            warning: `run ${resumed.runId} has no definition snapshot (it started before closer kept them); from now on it works from a copy of ${base.agent.dir} as it is now`,
          })
        : options.reload === true
          ? await takeSnapshot(base, runDir, {
              how: "reloaded",
              previousHash: resumed.definition.hash,
            })
          : await keepSnapshot(base, runDir, resumed, resumed.definition);
  if (resumed !== undefined) {
    const { assertAgentValid } = await import("../lint/index.js");
    await assertAgentValid(fixed.agent);
  }
  return fixed;
}

interface SnapshotKind {
  readonly how: "taken" | "reloaded";
  readonly previousHash?: string;
  readonly warning?: string;
}

async function takeSnapshot(
  base: RunBase,
  runDir: string,
  kind: SnapshotKind,
): Promise<FixedDefinition> {
  const files = base.agent.definitionFiles ?? (await readDefinitionFiles(base.agent.dir));
  const dir = await writeDefinitionSnapshot(runDir, files).catch((error: unknown) => {
    throw isCloserError(error)
      ? error
      : recordWriteError(definitionSnapshotDir(runDir), runDir, error);
  });
  const skipped =
    files.skipped.length === 0
      ? []
      : [
          `left out of the run's definition snapshot, as symlinks leading out of ${base.agent.dir}: ${files.skipped.join(", ")}`,
        ];
  return {
    agent: await snapshotAgent(base, dir),
    definition: {
      ...stampOf(files),
      how: kind.how,
      ...(kind.previousHash === undefined ? {} : { previousHash: kind.previousHash }),
    },
    warnings: [...(kind.warning === undefined ? [] : [kind.warning]), ...skipped],
  };
}

/** The resumed run's own snapshot, refused when it no longer matches its record. */
async function keepSnapshot(
  base: RunBase,
  runDir: string,
  resumed: RunState,
  recorded: DefinitionStamp,
): Promise<FixedDefinition> {
  const dir = definitionSnapshotDir(runDir);
  const snapshot = await readDefinitionFiles(dir).catch((error: unknown) => {
    if (isCloserError(error) && error.code === "not_found") return undefined;
    throw error;
  });
  const fromEvents = await readRecordedDefinitionHash(runDir);
  if (snapshot?.hash !== recorded.hash || fromEvents !== recorded.hash) {
    throw changedSnapshot({ runId: resumed.runId, dir, base, recorded, snapshot, fromEvents });
  }
  const treeHash =
    base.agent.definitionFiles?.hash ??
    (await readDefinitionFiles(base.agent.dir).catch(() => undefined))?.hash;
  return {
    agent: await loadSnapshot(base, dir, snapshot),
    definition: { ...recorded, how: "kept" },
    warnings:
      treeHash === recorded.hash
        ? []
        : [
            `the agent definition in ${base.agent.dir} changed since the run started; this run keeps the definition it started with — --reload-definition uses the new one`,
          ],
  };
}

/**
 * The run's agent in the snapshot just written to `dir`: the caller's, moved there, when
 * the snapshot holds the files it was parsed from; else loaded from the snapshot.
 */
async function snapshotAgent(base: RunBase, dir: string): Promise<ResolvedAgent> {
  if (base.agent.definitionFiles === undefined) return await loadSnapshot(base, dir);
  return withCliOverrides(relocateAgent(base.agent, dir), base.agent.cliOverrides ?? {});
}

/**
 * The agent of the snapshot in `dir` (parsed from `files` when they were read), with the
 * overrides the caller's agent was given; other changes a caller made to it are not used.
 */
async function loadSnapshot(
  base: RunBase,
  dir: string,
  files?: DefinitionFiles,
): Promise<ResolvedAgent> {
  const loaded = await loadAgent(base.agent.name, {
    cwd: base.projectDir,
    dir,
    ...(files === undefined ? {} : { files }),
  });
  return withCliOverrides(loaded, base.agent.cliOverrides ?? {});
}

function stampOf(files: DefinitionFiles): DefinitionStamp {
  return { hash: files.hash, files: files.files.length };
}

function changedSnapshot(found: {
  runId: string;
  dir: string;
  base: RunBase;
  recorded: DefinitionStamp;
  snapshot: DefinitionFiles | undefined;
  fromEvents: string | undefined;
}): CloserError {
  const files = found.snapshot === undefined ? "missing" : `hashing to ${found.snapshot.hash}`;
  return new CloserError(
    "record_error",
    `the definition snapshot of run ${found.runId} was changed after the run started`,
    {
      file: found.dir,
      expected: `files hashing to ${found.recorded.hash}, as run.json and events.jsonl say`,
      found: `files ${files}; events.jsonl says ${found.fromEvents ?? "nothing"}`,
      fix: `start a new run; or, to go on with the agent in ${found.base.agent.dir} as it is now, resume with --reload-definition`,
    },
  );
}
