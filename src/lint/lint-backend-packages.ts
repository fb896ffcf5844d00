import {
  describeMissing,
  missingPackages,
  OPENAI_COMPATIBLE_PACKAGES,
} from "../optional-packages.js";
import type { ResolvedAgent } from "../ports/agent.js";
import type { ProblemCollector } from "./problem.js";

/**
 * The openai-compatible backend runs on the AI SDK, which an install of closer
 * leaves to those who use it (docs/cli.md#install): without it a run could not
 * make its backend, so it is refused before the project's setup or any query.
 */
export function lintBackendPackages(
  agent: ResolvedAgent,
  problems: ProblemCollector,
  from?: string,
): void {
  if (agent.runner.backend.kind !== "openai-compatible") return;
  const missing = missingPackages(OPENAI_COMPATIBLE_PACKAGES, from);
  if (missing.length === 0) return;
  const { message, fix } = describeMissing(OPENAI_COMPATIBLE_PACKAGES, missing);
  problems.error({ file: agent.files.agentJson, jsonPath: "runner.backend.kind" }, message, fix);
}
