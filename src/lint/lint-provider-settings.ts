import { homedir } from "node:os";
import { readProviderSettings } from "../credentials/provider-settings.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { BackendKind } from "../ports/runner-config.js";
import type { ProblemCollector } from "./problem.js";

/**
 * codex and opencode read their endpoint and the variable of their key from their own
 * configuration; where closer cannot read it, or the variable is not set in this environment,
 * a run from here fails at its first query: each is named with its file and field
 * (docs/backends.md#provider-settings).
 */
export async function lintProviderSettings(
  agent: ResolvedAgent,
  problems: ProblemCollector,
  place: {
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly project: string;
  },
): Promise<void> {
  const kinds = backendKindsOf(agent);
  if (!kinds.includes("codex") && !kinds.includes("opencode")) return;
  const home = place.env.HOME ?? homedir();
  const settings = await readProviderSettings(kinds, { ...place, home });
  for (const problem of settings.problems) {
    // A file of the user's home reads as ~/…, not as a path climbing out of the project.
    const file = problem.file.startsWith(`${home}/`)
      ? `~/${problem.file.slice(home.length + 1)}`
      : problem.file;
    problems.warning({ file, jsonPath: problem.field }, problem.message, problem.fix);
  }
}

/** The agent's backend kind and those of its closing reviews. */
function backendKindsOf(agent: ResolvedAgent): BackendKind[] {
  const reviewers = Object.values(agent.registry.completionSteps).flatMap(
    (step) => step.closureReview?.backend?.kind ?? [],
  );
  return [...new Set([agent.runner.backend.kind, ...reviewers])];
}
