/**
 * The agent's environment: what every backend process runs with. It is
 * closer's own environment plus what closer adds for the query, without the
 * GitHub tokens — closer alone performs GitHub side effects, after
 * verification (docs/worktrees-and-github.md#github-boundary).
 */
import path from "node:path";

/** Tokens the model must not hold; `GITHUB_TOKEN` is also the one closer itself uses. */
export const GITHUB_TOKEN_VARIABLES: readonly string[] = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "GITHUB_ENTERPRISE_TOKEN",
  "GH_ENTERPRISE_TOKEN",
];

/** `base` plus `added`, without the GitHub tokens (whichever side set them). */
export function makeAgentEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  added: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined) env[name] = value;
  Object.assign(env, added);
  for (const name of GITHUB_TOKEN_VARIABLES) delete env[name];
  return env;
}

/** A PATH whose first entry is `folder`, followed by `path` (if any). */
export function pathWithFirst(folder: string, searchPath: string | undefined): string {
  return searchPath ? `${folder}${path.delimiter}${searchPath}` : folder;
}
