/**
 * codex's own provider settings (docs/backends.md#provider-settings): the
 * provider `config.toml` selects (`model_provider`, or that of the `profile`
 * it names) and, for one defined under `[model_providers.<id>]`, its
 * `base_url` and `env_key`. A run's copy of the file can have that provider
 * pointed at closer's key proxy.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse, stringify } from "smol-toml";
import type { ProviderEndpoint, ProviderSettings } from "./provider-endpoint.js";

/** Providers codex knows without a `[model_providers]` table; `openai` is its default. */
const BUILT_IN = new Set(["openai", "oss", "ollama", "lmstudio"]);

/** Where codex reads its configuration: `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`. */
export function codexConfigFile(
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): string {
  return join(env.CODEX_HOME ?? join(home, ".codex"), "config.toml");
}

type Table = Record<string, unknown>;

/** The provider the file at `file` selects; nothing for a missing file or a built-in provider. */
export async function readCodexProvider(file: string): Promise<ProviderSettings> {
  let config: Table;
  try {
    config = parse(await readFile(file, "utf8")) as Table;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { endpoints: [], problems: [] };
    const message = `codex's config.toml cannot be read: ${firstLine(error)}`;
    const fix = "make the file valid TOML (codex cannot read it either)";
    return { endpoints: [], problems: [{ file, field: "", message, fix }] };
  }
  const { id, field } = selectedProvider(config);
  const providers = tableOf(config.model_providers);
  const provider = tableOf(providers[id]);
  if (providers[id] === undefined) {
    if (BUILT_IN.has(id)) return { endpoints: [], problems: [] };
    const message = `${field} is "${id}", which no [model_providers.${id}] table defines`;
    const fix = `add [model_providers.${id}] with base_url and env_key, or name a defined provider`;
    return { endpoints: [], problems: [{ file, field, message, fix }] };
  }
  return { endpoints: [endpointOf(file, id, provider)], problems: [] };
}

function endpointOf(file: string, id: string, provider: Table): ProviderEndpoint {
  const at = (key: string) => ({ file, field: `model_providers.${id}.${key}` });
  const url = stringOf(provider.base_url);
  const envKey = stringOf(provider.env_key);
  return {
    backend: "codex",
    provider: id,
    ...(url === undefined ? {} : { baseUrl: { url, at: at("base_url") } }),
    ...(envKey === undefined ? {} : { key: { variables: [envKey], at: at("env_key") } }),
    variables: envKey === undefined ? [] : [envKey],
  };
}

/** `model_provider`, or the `model_provider` of the profile `profile` names (codex's order). */
function selectedProvider(config: Table): { id: string; field: string } {
  const profile = stringOf(config.profile);
  const fromProfile =
    profile === undefined
      ? undefined
      : stringOf(tableOf(tableOf(config.profiles)[profile]).model_provider);
  if (profile !== undefined && fromProfile !== undefined) {
    return { id: fromProfile, field: `profiles.${profile}.model_provider` };
  }
  return { id: stringOf(config.model_provider) ?? "openai", field: "model_provider" };
}

/**
 * Rewrites the run's copy of config.toml at `file` so that the provider `id` is reached at
 * `baseUrl` (closer's key proxy); the rest of the file stays as it was, comments aside.
 */
export async function pointCodexProviderAt(file: string, id: string, baseUrl: string) {
  const config = parse(await readFile(file, "utf8")) as Table;
  const provider = tableOf(tableOf(config.model_providers)[id]);
  provider.base_url = baseUrl;
  await writeFile(file, stringify(config), { mode: 0o600 });
}

function tableOf(value: unknown): Table {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Table)
    : {};
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
}
