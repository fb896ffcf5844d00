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

/**
 * What `agent` passes on purpose: `runner.env` and, for `backend`, its `passGithubToken`; and the
 * variables `backend`'s own provider settings read its key from (docs/backends.md#provider-settings).
 */
export function grantOf(
  agent: ResolvedAgent,
  backend: BackendConfig,
  credentials: BackendCredentials = NO_CREDENTIALS,
): EnvironmentGrant {
  const { env } = agent.runner;
  return {
    ...env,
    backend: [...env.backend, ...credentials.providerVariables(backend.kind)],
    passGithubToken: backend.passGithubToken === true,
  };
}

/** Every kind's environment for a run of `agent`. */
export function runEnvironments(
  env: Environment,
  agent: ResolvedAgent,
  credentials: BackendCredentials = NO_CREDENTIALS,
): ChildEnvironments {
  const environments = makeChildEnvironments(
    env,
    grantOf(agent, agent.runner.backend, credentials),
  );
  const backend = credentials.envFor(agent.runner.backend.kind, environments.backend);
  return { backend: withoutAutoGc(backend), validators: withoutAutoGc(environments.validators) };
}

/**
 * `env` with git's automatic housekeeping off for the processes of the run (`gc.auto=0`, given as
 * `GIT_CONFIG_COUNT` after any the environment holds): a commit of the model's in a large
 * repository would otherwise repack it in the background, writing where the run's policy keeps
 * git's files read-only (docs/integrity.md#git-state).
 */
export function withoutAutoGc(env: Readonly<Record<string, string>>): Record<string, string> {
  const count = Number.parseInt(env.GIT_CONFIG_COUNT ?? "0", 10);
  const index = Number.isInteger(count) && count > 0 ? count : 0;
  return {
    ...env,
    GIT_CONFIG_COUNT: String(index + 1),
    [`GIT_CONFIG_KEY_${index}`]: "gc.auto",
    [`GIT_CONFIG_VALUE_${index}`]: "0",
  };
}

/** The environment of `backend`'s processes, for a run of `agent`. */
export function backendEnvironment(
  env: Environment,
  agent: ResolvedAgent,
  backend: BackendConfig,
  credentials: BackendCredentials = NO_CREDENTIALS,
): Record<string, string> {
  return withoutAutoGc(
    credentials.envFor(
      backend.kind,
      makeChildEnvironment("backend", env, grantOf(agent, backend, credentials)),
    ),
  );
}
