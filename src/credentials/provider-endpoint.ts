/**
 * The words of a backend CLI's own provider settings
 * (docs/backends.md#provider-settings): where its model endpoint is and which
 * variable holds its key, as codex's `config.toml` and opencode's
 * `opencode.json` say it, and what closer cannot read there.
 */

/** A field of a backend's own configuration file. */
export interface ConfigPlace {
  readonly file: string;
  /** The field, written the way the file spells it: `model_providers.x.env_key`. */
  readonly field: string;
}

/** One provider a backend CLI calls, as its configuration names it. */
export interface ProviderEndpoint {
  readonly backend: "codex" | "opencode";
  /** The provider's id in the configuration. */
  readonly provider: string;
  /** The endpoint's base URL, and where it is set; absent: the CLI's built-in one. */
  readonly baseUrl?: { readonly url: string; readonly at: ConfigPlace };
  /** The variables its key is read from, any one of them, and where that is said. */
  readonly key?: { readonly variables: readonly string[]; readonly at: ConfigPlace };
  /** Every variable the provider's settings read (the key's among them): passed to the backend. */
  readonly variables: readonly string[];
}

/** What closer could not read, or what the settings need that is missing: said by `closer validate`. */
export interface ProviderProblem extends ConfigPlace {
  readonly message: string;
  readonly fix: string;
}

export interface ProviderSettings {
  readonly endpoints: readonly ProviderEndpoint[];
  readonly problems: readonly ProviderProblem[];
}

export const NO_PROVIDER_SETTINGS: ProviderSettings = { endpoints: [], problems: [] };

/** Whether `name` holds a value in `env`. */
export function isSetIn(env: Readonly<Record<string, string | undefined>>, name: string): boolean {
  const value = env[name];
  return value !== undefined && value.trim() !== "";
}
