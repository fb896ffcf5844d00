import { type GithubClient, makeGithubClient, resolveRepo } from "../github/index.js";
import type { GithubRunOptions, RunBaseOptions } from "./run-options.js";

/** The given client, else one for `--repo` or the `origin` remote, from GITHUB_TOKEN and GITHUB_API_URL. */
export async function githubClientFor(
  options: Pick<RunBaseOptions, "cwd" | "env"> & GithubRunOptions,
): Promise<GithubClient> {
  if (options.github !== undefined) return options.github;
  const { owner, repo } = await resolveRepo(
    options.cwd,
    options.repo === undefined ? {} : { override: options.repo },
  );
  return makeGithubClient({ owner, repo, env: options.env ?? process.env });
}
