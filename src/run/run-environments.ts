/**
 * The environments of a run's processes that run the model's code, from
 * closer's environment and what the agent passes on purpose
 * (docs/backends.md#environment).
 */
import type { ResolvedAgent } from "../ports/agent.js";
import type { ChildEnvironments } from "../ports/process.js";
import type { BackendConfig } from "../ports/runner-config.js";
import {
  type EnvironmentGrant,
  makeChildEnvironment,
  makeChildEnvironments,
} from "../process/child-environment.js";
import type { Environment } from "./run-options.js";

/** What `agent` passes on purpose: `runner.env` and, for `backend`, its `passGithubToken`. */
export function grantOf(agent: ResolvedAgent, backend: BackendConfig): EnvironmentGrant {
  const { env } = agent.runner;
  return { ...env, passGithubToken: backend.passGithubToken === true };
}

/** Every kind's environment for a run of `agent`. */
export function runEnvironments(env: Environment, agent: ResolvedAgent): ChildEnvironments {
  return makeChildEnvironments(env, grantOf(agent, agent.runner.backend));
}

/** The environment of `backend`'s processes, for a run of `agent`. */
export function backendEnvironment(
  env: Environment,
  agent: ResolvedAgent,
  backend: BackendConfig,
): Record<string, string> {
  return makeChildEnvironment("backend", env, grantOf(agent, backend));
}
