/**
 * The key of codex's own provider behind closer's key proxy
 * (docs/integrity.md#credentials): a provider of `config.toml` with a
 * `base_url` and an `env_key` gets a proxy of its own aimed at that URL; the
 * run's copy of `config.toml` names the proxy as the provider's `base_url`,
 * and the backend holds a placeholder in the `env_key` variable.
 */
import { join } from "node:path";
import { pointCodexProviderAt } from "./codex-config.js";
import { type KeyProxy, startKeyProxy } from "./key-proxy.js";
import { placeholderFor } from "./model-keys.js";
import { isSetIn, type ProviderSettings } from "./provider-endpoint.js";

export interface ProviderProxy {
  /** The provider's id in config.toml. */
  readonly provider: string;
  /** The variable that holds its key: the placeholder in the backend, the key in the proxy. */
  readonly variable: string;
  readonly proxy: KeyProxy;
}

/**
 * A proxy for codex's provider when its key is in `env` and codex's configuration is the run's
 * copy (only that copy can be pointed at the proxy); none otherwise, and the key is passed as it is.
 */
export async function startProviderProxies(
  settings: ProviderSettings,
  env: Readonly<Record<string, string>>,
  runsOwnCopy: boolean,
): Promise<ProviderProxy[]> {
  if (!runsOwnCopy) return [];
  const started: ProviderProxy[] = [];
  for (const { backend, provider, baseUrl, key } of settings.endpoints) {
    const variable = key?.variables[0];
    if (backend !== "codex" || baseUrl === undefined || variable === undefined) continue;
    if (!isSetIn(env, variable)) continue;
    const keys = new Map([[placeholderFor(variable), env[variable] ?? ""]]);
    started.push({
      provider,
      variable,
      proxy: await startKeyProxy({ target: baseUrl.url, pathSpace: "/", keys }),
    });
  }
  return started;
}

/** Points the run's copy of codex's config.toml, in `codexHome`, at each provider's proxy. */
export async function pointAtProxies(codexHome: string, proxies: readonly ProviderProxy[]) {
  for (const { provider, proxy } of proxies) {
    await pointCodexProviderAt(join(codexHome, "config.toml"), provider, proxy.baseUrl);
  }
}
