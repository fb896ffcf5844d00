import { CloserError } from "../errors.js";
import type { GithubClient } from "../ports/github.js";
import type { GithubConfig } from "../ports/runner-config.js";
import type { RunBase } from "./run-base.js";
import type { GithubRunOptions } from "./run-options.js";

/** Whether closer labels, comments on or closes the issue after a run. */
function changesIssues(config: GithubConfig): boolean {
  return (
    config.closeAction !== "label-only" ||
    config.labels.add.length + config.labels.remove.length > 0 ||
    config.completionComment ||
    config.failureComment
  );
}

/**
 * The given client, else one for `--repo` or the `origin` remote, from
 * GITHUB_TOKEN and GITHUB_API_URL. Without a token a run that changes the
 * issue stops here, before any model call, rather than after the work.
 */
export async function githubClientFor(
  base: Pick<RunBase, "agent" | "projectDir" | "env">,
  options: GithubRunOptions,
): Promise<GithubClient> {
  if (options.github !== undefined) return options.github;
  const { env } = base;
  if (!env.GITHUB_TOKEN && changesIssues(base.agent.runner.github)) {
    throw new CloserError("config_error", "GITHUB_TOKEN is not set", {
      file: base.agent.files.agentJson,
      jsonPath: "runner.github",
      expected: "a GitHub token in GITHUB_TOKEN",
      found: "no token",
      fix: "export GITHUB_TOKEN=<a token that may edit the repository's issues>; closer labels, comments on or closes the issue after the work is verified",
    });
  }
  // Octokit is loaded only by runs that talk to GitHub.
  const { makeGithubClient, resolveRepo } = await import("../github/index.js");
  const { owner, repo } = await resolveRepo(
    base.projectDir,
    options.repo === undefined ? {} : { override: options.repo },
  );
  return makeGithubClient({ owner, repo, env });
}
