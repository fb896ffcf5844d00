/**
 * The environments of a run's processes that run the model's code, from
 * closer's environment and what the agent passes on purpose
 * (docs/backends.md#environment); the backend's with its model keys hidden
 * and its state folder the run's (docs/integrity.md#credentials).
 */
import { type BackendCredentials, NO_CREDENTIALS } from "../credentials/backend-credentials.js";
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
export function runEnvironments(
  env: Environment,
  agent: ResolvedAgent,
  credentials: BackendCredentials = NO_CREDENTIALS,
): ChildEnvironments {
  const environments = makeChildEnvironments(env, grantOf(agent, agent.runner.backend));
  const backend = credentials.envFor(agent.runner.backend.kind, environments.backend);
  return { ...environments, backend };
}

/** The environment of `backend`'s processes, for a run of `agent`. */
export function backendEnvironment(
  env: Environment,
  agent: ResolvedAgent,
  backend: BackendConfig,
  credentials: BackendCredentials = NO_CREDENTIALS,
): Record<string, string> {
  return credentials.envFor(
    backend.kind,
    makeChildEnvironment("backend", env, grantOf(agent, backend)),
  );
}
