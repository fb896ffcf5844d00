/**
 * Where a run's decision file is (docs/completion.md#decision-file): the
 * place agent.json names in the tree, else `decision.json` in a folder of the
 * run's own that git never sees.
 */
import { join } from "node:path";
import { resolveDecisionPath } from "../completion/decide-completion.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { SandboxState } from "../sandbox/run-sandbox.js";

/**
 * Where the model writes its decision file (docs/completion.md#decision-file):
 * `decision.json` in `defaultFolder` (the run folder, or the sandbox's scratch
 * folder when the run folder is read-only to the model), which git never sees,
 * unless agent.json names a path in the working tree.
 */
export function decisionPathOf(agent: ResolvedAgent, cwd: string, defaultFolder: string): string {
  const configured = agent.runner.decisionFile;
  if (configured === undefined) return join(defaultFolder, DEFAULT_DECISION_FILE_NAME);
  return resolveDecisionPath(cwd, configured, {
    file: agent.files.agentJson,
    jsonPath: "runner.decisionFile",
  });
}

/** Where the decision file goes when agent.json names none: the run folder, unless the sandbox makes it read-only. */
export function defaultDecisionFolder(runDir: string, sandbox: SandboxState | undefined): string {
  return sandbox?.on === true ? sandbox.sandbox.scratchDir : runDir;
}

/** The decision file's name in the run folder. */
export const DEFAULT_DECISION_FILE_NAME = "decision.json";
