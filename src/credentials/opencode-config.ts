/**
 * opencode's own provider settings (docs/backends.md#provider-settings): the
 * `provider` entries of its configuration files, merged in opencode's order
 * (the global `~/.config/opencode/opencode.json`, the file `OPENCODE_CONFIG`
 * names, the project's `opencode.json`, `OPENCODE_CONFIG_CONTENT`), each with
 * its `options.baseURL`, an `options.apiKey` of the form `{env:NAME}`, and its
 * `env` list.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ConfigPlace, ProviderEndpoint, ProviderProblem } from "./provider-endpoint.js";

type Env = Readonly<Record<string, string | undefined>>;
type Table = Record<string, unknown>;

/** One configuration, read: where it came from and its `provider` entries. */
interface ReadConfig {
  readonly file: string;
  readonly providers: Table;
}

/** A provider's settings merged over the files, each field with the file that set it last. */
interface Merged {
  baseUrl?: { value: string; at: ConfigPlace };
  apiKey?: { value: string; at: ConfigPlace };
  env?: { value: string[]; at: ConfigPlace };
}

/** The configuration files opencode reads, lowest precedence first; `project` is where it runs. */
export function opencodeConfigFiles(env: Env, home: string, project: string): string[] {
  const global = join(env.XDG_CONFIG_HOME ?? join(home, ".config"), "opencode");
  return [
    join(global, "config.json"),
    join(global, "opencode.json"),
    join(global, "opencode.jsonc"),
    ...(env.OPENCODE_CONFIG === undefined ? [] : [env.OPENCODE_CONFIG]),
    join(project, "opencode.json"),
    join(project, "opencode.jsonc"),
  ];
}

/** The providers opencode's configuration defines, and the files closer could not read. */
export async function readOpencodeProviders(
  env: Env,
  home: string,
  project: string,
): Promise<{ endpoints: ProviderEndpoint[]; problems: ProviderProblem[] }> {
  const problems: ProviderProblem[] = [];
  const configs: ReadConfig[] = [];
  for (const file of opencodeConfigFiles(env, home, project)) {
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text !== undefined) configs.push(parseConfig(file, text, problems));
  }
  const inline = env.OPENCODE_CONFIG_CONTENT;
  if (inline !== undefined) configs.push(parseConfig("$OPENCODE_CONFIG_CONTENT", inline, problems));
  const merged = mergeProviders(configs);
  const loggedIn = await storedLogins(env, home);
  const endpoints = [...merged].map(([id, settings]) =>
    endpointOf(id, settings, env, loggedIn.has(id)),
  );
  return { endpoints, problems };
}

function parseConfig(file: string, text: string, problems: ProviderProblem[]): ReadConfig {
  try {
    const config = JSON.parse(withoutComments(text)) as unknown;
    return { file, providers: tableOf(tableOf(config).provider) };
  } catch (error) {
    problems.push({
      file,
      field: "",
      message: `opencode's configuration cannot be read: ${String(error)}`,
      fix: "make the file valid JSON (opencode cannot read it either)",
    });
    return { file, providers: {} };
  }
}

function mergeProviders(configs: readonly ReadConfig[]): Map<string, Merged> {
  const merged = new Map<string, Merged>();
  for (const { file, providers } of configs) {
    for (const [id, entry] of Object.entries(providers)) {
      const provider = tableOf(entry);
      const options = tableOf(provider.options);
      const settings = merged.get(id) ?? {};
      const at = (field: string) => ({ file, field: `provider.${id}.${field}` });
      if (typeof options.baseURL === "string") {
        settings.baseUrl = { value: options.baseURL, at: at("options.baseURL") };
      }
      if (typeof options.apiKey === "string") {
        settings.apiKey = { value: options.apiKey, at: at("options.apiKey") };
      }
      if (Array.isArray(provider.env)) {
        const names = provider.env.filter((name): name is string => typeof name === "string");
        settings.env = { value: names, at: at("env") };
      }
      merged.set(id, settings);
    }
  }
  return merged;
}

function endpointOf(id: string, settings: Merged, env: Env, loggedIn: boolean): ProviderEndpoint {
  const keyVariable = settings.apiKey === undefined ? [] : envReferences(settings.apiKey.value);
  const urlVariables = settings.baseUrl === undefined ? [] : envReferences(settings.baseUrl.value);
  const url = settings.baseUrl === undefined ? "" : withEnv(settings.baseUrl.value, env);
  const key = keyOf(settings, keyVariable, loggedIn);
  return {
    backend: "opencode",
    provider: id,
    ...(url === "" || settings.baseUrl === undefined
      ? {}
      : { baseUrl: { url, at: settings.baseUrl.at } }),
    ...(key === undefined ? {} : { key }),
    variables: [...new Set([...keyVariable, ...urlVariables, ...(settings.env?.value ?? [])])],
  };
}

/** Where the provider's key comes from: a written key, or a login opencode stored, needs no variable. */
function keyOf(settings: Merged, fromApiKey: readonly string[], loggedIn: boolean) {
  if (settings.apiKey !== undefined) {
    return fromApiKey.length > 0 ? { variables: fromApiKey, at: settings.apiKey.at } : undefined;
  }
  if (loggedIn || settings.env === undefined || settings.env.value.length === 0) return undefined;
  return { variables: settings.env.value, at: settings.env.at };
}

/** The providers opencode holds a login for (`opencode auth login`, its `auth.json`). */
async function storedLogins(env: Env, home: string): Promise<Set<string>> {
  const data = env.XDG_DATA_HOME ?? join(home, ".local/share");
  const text = await readFile(join(data, "opencode", "auth.json"), "utf8").catch(() => "{}");
  try {
    return new Set(Object.keys(tableOf(JSON.parse(text))));
  } catch {
    return new Set();
  }
}

/** The variables a value names as `{env:NAME}`. */
function envReferences(value: string): string[] {
  return [...value.matchAll(/\{env:([^}]+)\}/g)].map((match) => match[1] ?? "");
}

/** The value with each `{env:NAME}` replaced as opencode replaces it (unset: empty). */
function withEnv(value: string, env: Env): string {
  return value.replace(/\{env:([^}]+)\}/g, (_, name: string) => env[name] ?? "");
}

/** JSONC as JSON: `//` and `/* *\/` comments and trailing commas dropped, strings untouched. */
export function withoutComments(text: string): string {
  const pattern = /("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\/|,(\s*[}\]])/g;
  return text.replace(pattern, (_, quoted?: string, closing?: string) => quoted ?? closing ?? "");
}

function tableOf(value: unknown): Table {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Table)
    : {};
}
