/**
 * The agent's environment: what every backend process runs with. It is the
 * backend's environment (the run gives the one the environment policy built,
 * docs/backends.md#environment) plus what closer adds for the query, without
 * the GitHub tokens unless the agent opted in — closer alone performs GitHub
 * side effects, after verification (docs/worktrees-and-github.md#github-boundary).
 */
import path from "node:path";
import { GITHUB_TOKEN_VARIABLES } from "./child-environment.js";

export { GITHUB_TOKEN_VARIABLES };

/** `base` plus `added`, without the GitHub tokens (whichever side set them) unless `keepGithubToken`. */
export function makeAgentEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  added: Readonly<Record<string, string>>,
  keepGithubToken = false,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined) env[name] = value;
  Object.assign(env, added);
  if (!keepGithubToken) for (const name of GITHUB_TOKEN_VARIABLES) delete env[name];
  return env;
}

/** A PATH whose first entry is `folder`, followed by `path` (if any). */
export function pathWithFirst(folder: string, searchPath: string | undefined): string {
  return searchPath ? `${folder}${path.delimiter}${searchPath}` : folder;
}
