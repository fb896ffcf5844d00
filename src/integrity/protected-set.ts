import { isAbsolute, join, relative } from "node:path";
import type { ResolvedAgent } from "../ports/agent.js";
import type { ProtectedSet } from "../ports/files.js";
import { definitionSnapshotDir } from "../record/definition-snapshot.js";
import { DEPENDENCY_BIN_FOLDERS } from "./bin-folders.js";
import { scriptsRunBy } from "./package-scripts.js";
import { DEFAULT_PROTECTED_GLOBS } from "./protected-files.js";

/** Where a run works: the project folder it was started in, its working tree, its run folder. */
export interface ProtectedPlace {
  readonly projectDir: string;
  readonly workTree: string;
  readonly runDir: string;
  /** The agent's folder in the project (the agent itself is loaded from the run's snapshot). */
  readonly agentFolder: string;
}

/**
 * What a run protects (docs/integrity.md#protected-paths): the agent folder
 * (and its copy in the run's worktree), the run's definition snapshot, the
 * test-runner, CI, package-manager and runtime configuration, the package.json
 * scripts the checks run, the dependency bin folders' executables, and the
 * registry's `protectedPaths`.
 */
export function protectedSetFor(agent: ResolvedAgent, place: ProtectedPlace): ProtectedSet {
  const folders = [place.agentFolder, definitionSnapshotDir(place.runDir)];
  const inProject = relative(place.projectDir, place.agentFolder);
  if (
    place.workTree !== place.projectDir &&
    !inProject.startsWith("..") &&
    !isAbsolute(inProject)
  ) {
    folders.push(join(place.workTree, inProject));
  }
  const commands = Object.values(agent.registry.validators).flatMap((validator) =>
    validator.type === "command" ? [validator.command] : [],
  );
  return {
    workTree: place.workTree,
    globs: [...DEFAULT_PROTECTED_GLOBS, ...agent.registry.protectedPaths],
    folders: [...new Set(folders)],
    packageScripts: scriptsRunBy(commands),
    binFolders: DEPENDENCY_BIN_FOLDERS,
  };
}
