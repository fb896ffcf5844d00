/**
 * A run's model credentials (docs/integrity.md#credentials): the key proxies
 * the run's backend kinds need, started once for the run, and their state
 * folders made for it; `envFor` gives each backend's environment with the
 * keys hidden and the state moved, `release` stops the proxies and removes
 * the folders.
 */
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BackendKind } from "../ports/runner-config.js";
import {
  makeRunStateFolder,
  STATE_FOLDERS,
  type StateKind,
  stateKindOf,
  userStateFolder,
} from "./backend-state.js";
import { type KeyProxy, startKeyProxy } from "./key-proxy.js";
import {
  FAMILY_APIS,
  holdsKey,
  type KeyFamily,
  keyFamilyOf,
  placeholderFor,
  proxiedKeys,
  withKeysHidden,
} from "./model-keys.js";
import { NO_PROVIDER_SETTINGS, type ProviderSettings } from "./provider-endpoint.js";
import { type ProviderProxy, pointAtProxies, startProviderProxies } from "./provider-proxy.js";
import { providerUrls, providerVariables } from "./provider-settings.js";

export interface BackendCredentials {
  /** `env` (the backend's, from the environment policy) as `kind`'s processes get it. */
  envFor(kind: BackendKind, env: Readonly<Record<string, string>>): Record<string, string>;
  /** The run's state folders, by the variable that names each (the sandbox lets the backend write them). */
  readonly stateFolders: Readonly<Record<string, string>>;
  /** `127.0.0.1:PORT` of each key proxy (the sandbox lets the backend reach them). */
  readonly proxyHosts: readonly string[];
  /**
   * The variables `kind`'s own provider settings read its key from (docs/backends.md#provider-settings):
   * the environment policy passes them to that backend.
   */
  providerVariables(kind: BackendKind): readonly string[];
  /** The model endpoints the backends' own settings name (the sandbox lets the backend reach them). */
  readonly providerUrls: readonly string[];
  /** Stops the key proxies and removes the state folders. */
  release(): Promise<void>;
}

/** Nothing hidden, nothing moved: a run that sets none up (the bare library). */
export const NO_CREDENTIALS: BackendCredentials = {
  envFor: (_kind, env) => ({ ...env }),
  stateFolders: {},
  proxyHosts: [],
  providerVariables: () => [],
  providerUrls: [],
  release: async () => undefined,
};

export interface CredentialsOptions {
  readonly runId: string;
  /** The run's backend kind and those of its closing reviews. */
  readonly kinds: readonly BackendKind[];
  /** The backend's environment from the policy: where the keys, base URLs and state folders are. */
  readonly env: Readonly<Record<string, string>>;
  readonly home: string;
  /** What the backend CLIs' own configuration says of their providers; their variables are in `env`. */
  readonly providers?: ProviderSettings;
}

/** Starts what the run's backend kinds need; on a failure, what was started is stopped. */
export async function startBackendCredentials(
  options: CredentialsOptions,
): Promise<BackendCredentials> {
  const { env, kinds, providers = NO_PROVIDER_SETTINGS } = options;
  const proxies = new Map<KeyFamily, KeyProxy>();
  let providerProxies: ProviderProxy[] = [];
  let stateRoot: string | undefined;
  const stateFolders: Record<string, string> = {};
  const release = async () => {
    for (const proxy of proxies.values()) await proxy.close();
    for (const { proxy } of providerProxies) await proxy.close();
    if (stateRoot !== undefined) await rm(stateRoot, { recursive: true, force: true });
  };
  try {
    for (const family of unique(kinds.map((kind) => keyFamilyOf(kind, env)))) {
      if (!holdsKey(family, env)) continue;
      const api = FAMILY_APIS[family];
      proxies.set(
        family,
        await startKeyProxy({
          target: env[api.baseUrlVariable] ?? api.defaultBaseUrl,
          pathSpace: api.pathSpace,
          keys: proxiedKeys(family, env),
        }),
      );
    }
    // A folder named on purpose in closer's environment is the backend's, kept as it is.
    const states = unique(kinds.map(stateKindOf)).filter(
      (state) => env[STATE_FOLDERS[state].variable] === undefined,
    );
    providerProxies = await startProviderProxies(providers, env, states.includes("codex"));
    if (states.length > 0) {
      stateRoot = await realpath(await mkdtemp(join(tmpdir(), `closer-${options.runId}-state-`)));
      for (const state of states) {
        const folder = join(stateRoot, state);
        await makeRunStateFolder(
          state,
          userStateFolder(state, env, options.home),
          folder,
          !proxies.has(STATE_FOLDERS[state].family),
        );
        stateFolders[STATE_FOLDERS[state].variable] = folder;
      }
      if (stateFolders.CODEX_HOME !== undefined) {
        await pointAtProxies(stateFolders.CODEX_HOME, providerProxies);
      }
    }
  } catch (error) {
    await release();
    throw error;
  }
  const proxyUrls = new Map([...proxies].map(([family, proxy]) => [family, proxy.baseUrl]));
  return {
    envFor(kind, backendEnv) {
      const hidden = withProviderKeys(kind, backendEnv, {
        hidden: withKeysHidden(kind, backendEnv, proxyUrls),
        variables: providerVariables(providers, kind),
        proxied: providerProxies,
      });
      const state: StateKind | undefined = stateKindOf(kind);
      const variable = state === undefined ? undefined : STATE_FOLDERS[state].variable;
      const folder = variable === undefined ? undefined : stateFolders[variable];
      if (variable !== undefined && folder !== undefined) hidden[variable] = folder;
      return hidden;
    },
    stateFolders,
    proxyHosts: [...proxyUrls.values(), ...providerProxies.map(({ proxy }) => proxy.baseUrl)].map(
      (url) => new URL(url).host,
    ),
    providerVariables: (kind) => providerVariables(providers, kind),
    providerUrls: providerUrls(providers),
    release,
  };
}

/**
 * The keys of `kind`'s own providers: a proxied one's variable holds its placeholder; another's
 * holds the key as closer's environment has it, even where the variable is one closer proxies
 * for its own API (the provider's endpoint is not that API).
 */
function withProviderKeys(
  kind: BackendKind,
  env: Readonly<Record<string, string>>,
  provider: {
    hidden: Record<string, string>;
    variables: readonly string[];
    proxied: readonly ProviderProxy[];
  },
): Record<string, string> {
  const { hidden } = provider;
  if (kind !== "codex") return hidden;
  for (const variable of provider.variables) {
    const value = env[variable];
    if (value === undefined) continue;
    const proxied = provider.proxied.some((each) => each.variable === variable);
    hidden[variable] = proxied ? placeholderFor(variable) : value;
  }
  return hidden;
}

function unique<T>(values: readonly (T | undefined)[]): T[] {
  return [...new Set(values.filter((value): value is T => value !== undefined))];
}
