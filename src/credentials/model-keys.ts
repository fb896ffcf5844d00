/**
 * Which variables of the backend's environment are model API keys, and what
 * each backend kind gets in their place (docs/integrity.md#credentials): a
 * placeholder, and the base URL of closer's key proxy for the API its kind
 * calls. Pure: the same environment always gives the same answer.
 */
import type { BackendKind } from "../ports/runner-config.js";

/** The model APIs closer proxies, by the wire they speak. */
export type KeyFamily = "anthropic" | "openai";

export interface FamilyApi {
  /** The variables holding its keys, each sent as `x-api-key` or `Authorization: Bearer`. */
  readonly keyVariables: readonly string[];
  /** The variable the backend reads its base URL from. */
  readonly baseUrlVariable: string;
  /** The base URL when that variable is unset. */
  readonly defaultBaseUrl: string;
  /** Where its requests go under the base URL's path. */
  readonly pathSpace: string;
}

export const FAMILY_APIS: Readonly<Record<KeyFamily, FamilyApi>> = {
  // Claude Code: ANTHROPIC_API_KEY as x-api-key; ANTHROPIC_AUTH_TOKEN and CLAUDE_CODE_OAUTH_TOKEN as Bearer.
  anthropic: {
    keyVariables: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"],
    baseUrlVariable: "ANTHROPIC_BASE_URL",
    defaultBaseUrl: "https://api.anthropic.com",
    pathSpace: "/v1/",
  },
  // codex's built-in OpenAI provider reads its base URL from OPENAI_BASE_URL; the key as Bearer.
  openai: {
    keyVariables: ["OPENAI_API_KEY", "CODEX_API_KEY"],
    baseUrlVariable: "OPENAI_BASE_URL",
    defaultBaseUrl: "https://api.openai.com/v1",
    pathSpace: "/",
  },
};

/** Every model key variable closer knows. */
export const MODEL_KEY_VARIABLES: readonly string[] = Object.values(FAMILY_APIS).flatMap(
  (api) => api.keyVariables,
);

/**
 * The kinds whose processes keep the keys as they are: the `command` backend is the user's own
 * agent, which may call any API; opencode reads its providers' keys and addresses from its own
 * configuration, which no variable redirects (docs/backends.md#environment).
 */
const KEEP_KEYS: ReadonlySet<BackendKind> = new Set(["command", "opencode"]);

/** Claude Code on a cloud provider's platform reads no Anthropic key. */
const CLOUD_PLATFORM = [
  "CLAUDE_CODE_USE_BEDROCK",
  "CLAUDE_CODE_USE_VERTEX",
  "CLAUDE_CODE_USE_FOUNDRY",
];

/** The API `kind` calls with a key of `env`, when closer proxies it. */
export function keyFamilyOf(
  kind: BackendKind,
  env: Readonly<Record<string, string | undefined>>,
): KeyFamily | undefined {
  if (kind === "claude-sdk" || kind === "claude-cli") {
    return CLOUD_PLATFORM.some((name) => isSet(env[name])) ? undefined : "anthropic";
  }
  return kind === "codex" ? "openai" : undefined;
}

/** Whether `env` holds a key of `family`. */
export function holdsKey(
  family: KeyFamily,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return FAMILY_APIS[family].keyVariables.some((name) => isSet(env[name]));
}

/** What the backend holds instead of the key in `name`; no secret. */
export function placeholderFor(name: string): string {
  return `closer-placeholder-${name}`;
}

/** The key proxy's table for `family`: each of its keys set in `env`, by its placeholder. */
export function proxiedKeys(
  family: KeyFamily,
  env: Readonly<Record<string, string | undefined>>,
): Map<string, string> {
  const keys = new Map<string, string>();
  for (const name of FAMILY_APIS[family].keyVariables) {
    const value = env[name];
    if (value !== undefined && isSet(value)) keys.set(placeholderFor(name), value);
  }
  return keys;
}

/**
 * `env` as `kind`'s processes get it: every model key replaced by its placeholder, and the base
 * URL of the kind's API pointed at its key proxy (`proxies`: a proxy's base URL by family).
 */
export function withKeysHidden(
  kind: BackendKind,
  env: Readonly<Record<string, string>>,
  proxies: ReadonlyMap<KeyFamily, string>,
): Record<string, string> {
  const hidden = { ...env };
  if (KEEP_KEYS.has(kind)) return hidden;
  for (const name of MODEL_KEY_VARIABLES) {
    const value = hidden[name];
    if (value !== undefined && isSet(value)) hidden[name] = placeholderFor(name);
  }
  const family = keyFamilyOf(kind, env);
  const proxy = family === undefined ? undefined : proxies.get(family);
  if (family !== undefined && proxy !== undefined) {
    hidden[FAMILY_APIS[family].baseUrlVariable] = proxy;
  }
  return hidden;
}

function isSet(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== "";
}
