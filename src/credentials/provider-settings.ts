/**
 * The provider settings of a run's backend CLIs (docs/backends.md#provider-settings):
 * read from codex's and opencode's own configuration, so that the variable
 * holding the key reaches the backend, the endpoint is on the sandbox's allow
 * list, and `closer validate` names what is missing.
 */
import type { BackendKind } from "../ports/runner-config.js";
import { codexConfigFile, readCodexProvider } from "./codex-config.js";
import { readOpencodeProviders } from "./opencode-config.js";
import {
  isSetIn,
  type ProviderEndpoint,
  type ProviderProblem,
  type ProviderSettings,
} from "./provider-endpoint.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface ProviderPlace {
  /** closer's own environment: where the CLIs' configuration and keys are found. */
  readonly env: Env;
  readonly home: string;
  /** The folder the CLI runs in (the working tree): where opencode's project file is. */
  readonly project: string;
}

/** What the configuration of each CLI among `kinds` says, and what closer could not read. */
export async function readProviderSettings(
  kinds: readonly BackendKind[],
  place: ProviderPlace,
): Promise<ProviderSettings> {
  const endpoints: ProviderEndpoint[] = [];
  const problems: ProviderProblem[] = [];
  if (kinds.includes("codex")) {
    const codex = await readCodexProvider(codexConfigFile(place.env, place.home));
    endpoints.push(...codex.endpoints);
    problems.push(...codex.problems);
  }
  if (kinds.includes("opencode")) {
    const opencode = await readOpencodeProviders(place.env, place.home, place.project);
    endpoints.push(...opencode.endpoints);
    problems.push(...opencode.problems);
  }
  return { endpoints, problems: [...problems, ...missingKeys(endpoints, place.env)] };
}

/** The variables the providers of `kind` read: passed to that backend's processes. */
export function providerVariables(settings: ProviderSettings, kind: BackendKind): string[] {
  const variables = settings.endpoints
    .filter((endpoint) => endpoint.backend === kind)
    .flatMap((endpoint) => endpoint.variables);
  return [...new Set(variables)];
}

/** The endpoints' base URLs: the sandbox lets the backend reach their hosts. */
export function providerUrls(settings: ProviderSettings): string[] {
  return [...new Set(settings.endpoints.flatMap((endpoint) => endpoint.baseUrl?.url ?? []))];
}

/** A provider whose key variable closer's environment does not hold: its CLI fails at once. */
function missingKeys(endpoints: readonly ProviderEndpoint[], env: Env): ProviderProblem[] {
  return endpoints.flatMap(({ backend, provider, key }) => {
    if (key === undefined || key.variables.some((name) => isSetIn(env, name))) return [];
    const names = key.variables.join(" or ");
    return [
      {
        ...key.at,
        message: `${backend}'s provider "${provider}" reads its key from ${names}, which closer's environment does not hold: a run from here fails at its first query`,
        fix: `set ${key.variables[0]} to the provider's API key before closer run (closer passes it to ${backend})`,
      },
    ];
  });
}
