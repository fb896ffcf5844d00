import type { ResolvedAgent } from "../ports/agent.js";
import type { ProblemCollector } from "./problem.js";

/**
 * The openai-compatible backend reads its key from the variable `apiKeyEnv`
 * names when it runs; unset here, a run from this shell fails at its first
 * query with an auth error (docs/backends.md#openai-compatible).
 */
export function lintApiKeyEnv(
  agent: ResolvedAgent,
  problems: ProblemCollector,
  env: Readonly<Record<string, string | undefined>> = process.env,
): void {
  const { backend } = agent.runner;
  const name = backend.apiKeyEnv;
  if (backend.kind !== "openai-compatible" || name === undefined) return;
  if (env[name] !== undefined && env[name] !== "") return;
  problems.warning(
    { file: agent.files.agentJson, jsonPath: "runner.backend.apiKeyEnv" },
    `runner.backend.apiKeyEnv names ${name}, which is not set in this environment: a run from here fails with an auth error`,
    `set ${name} to the endpoint's API key before closer run, or drop apiKeyEnv for an endpoint that needs no key`,
  );
}
