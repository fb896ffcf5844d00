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
  proxiedKeys,
  withKeysHidden,
} from "./model-keys.js";

export interface BackendCredentials {
  /** `env` (the backend's, from the environment policy) as `kind`'s processes get it. */
  envFor(kind: BackendKind, env: Readonly<Record<string, string>>): Record<string, string>;
  /** The run's state folders, by the variable that names each (the sandbox lets the backend write them). */
  readonly stateFolders: Readonly<Record<string, string>>;
  /** `127.0.0.1:PORT` of each key proxy (the sandbox lets the backend reach them). */
  readonly proxyHosts: readonly string[];
  /** Stops the key proxies and removes the state folders. */
  release(): Promise<void>;
}

/** Nothing hidden, nothing moved: a run that sets none up (the bare library). */
export const NO_CREDENTIALS: BackendCredentials = {
  envFor: (_kind, env) => ({ ...env }),
  stateFolders: {},
  proxyHosts: [],
  release: async () => undefined,
};

export interface CredentialsOptions {
  readonly runId: string;
  /** The run's backend kind and those of its closing reviews. */
  readonly kinds: readonly BackendKind[];
  /** The backend's environment from the policy: where the keys, base URLs and state folders are. */
  readonly env: Readonly<Record<string, string>>;
  readonly home: string;
}

/** Starts what the run's backend kinds need; on a failure, what was started is stopped. */
export async function startBackendCredentials(
  options: CredentialsOptions,
): Promise<BackendCredentials> {
  const { env, kinds } = options;
  const proxies = new Map<KeyFamily, KeyProxy>();
  let stateRoot: string | undefined;
  const stateFolders: Record<string, string> = {};
  const release = async () => {
    for (const proxy of proxies.values()) await proxy.close();
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
    }
  } catch (error) {
    await release();
    throw error;
  }
  const proxyUrls = new Map([...proxies].map(([family, proxy]) => [family, proxy.baseUrl]));
  return {
    envFor(kind, backendEnv) {
      const hidden = withKeysHidden(kind, backendEnv, proxyUrls);
      const state: StateKind | undefined = stateKindOf(kind);
      const variable = state === undefined ? undefined : STATE_FOLDERS[state].variable;
      const folder = variable === undefined ? undefined : stateFolders[variable];
      if (variable !== undefined && folder !== undefined) hidden[variable] = folder;
      return hidden;
    },
    stateFolders,
    proxyHosts: [...proxyUrls.values()].map((url) => new URL(url).host),
    release,
  };
}

function unique<T>(values: readonly (T | undefined)[]): T[] {
  return [...new Set(values.filter((value): value is T => value !== undefined))];
}
