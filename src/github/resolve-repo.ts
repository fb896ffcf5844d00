/**
 * Which GitHub repository a checkout belongs to, from its `origin` remote.
 */
import { CloserError, GithubError } from "../errors.js";
import { getRemoteUrl } from "../workspace/git.js";

/** A repository on GitHub (or GitHub Enterprise). */
export interface RepositoryName {
  readonly owner: string;
  readonly repo: string;
}

const NAME = /^[A-Za-z0-9_.-]+$/;

function fromPath(pathPart: string): RepositoryName | undefined {
  const segments = pathPart
    .replace(/\/+$/, "")
    .replace(/\.git$/, "")
    .split("/")
    .filter((segment) => segment !== "");
  const repo = segments.at(-1);
  const owner = segments.at(-2);
  if (!owner || !repo || !NAME.test(owner) || !NAME.test(repo)) return undefined;
  return { owner, repo };
}

/**
 * Owner and name from a remote URL: `https://host/owner/repo(.git)`,
 * `ssh://git@host[:port]/owner/repo.git` or `git@host:owner/repo.git`.
 */
export function parseRepoUrl(url: string): RepositoryName | undefined {
  const trimmed = url.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    try {
      return fromPath(new URL(trimmed).pathname);
    } catch {
      return undefined;
    }
  }
  const scp = trimmed.match(/^(?:[^@/\s]+@)?[^:/\s]+:(.+)$/);
  return scp?.[1] ? fromPath(scp[1]) : undefined;
}

/** Parse an `owner/repo` override. */
function parseRepoName(text: string): RepositoryName | undefined {
  const parts = text.trim().split("/");
  const [owner, repo] = parts;
  if (parts.length !== 2 || !owner || !repo || !NAME.test(owner) || !NAME.test(repo)) {
    return undefined;
  }
  return { owner, repo: repo.replace(/\.git$/, "") };
}

/** The repository of `cwd`: `override` (`owner/repo`) when given, else the origin remote. */
export async function resolveRepo(
  cwd: string,
  options: { readonly override?: string; readonly remote?: string } = {},
): Promise<RepositoryName> {
  if (options.override !== undefined) {
    const parsed = parseRepoName(options.override);
    if (!parsed) {
      throw new CloserError("usage_error", `"${options.override}" is not a repository name`, {
        expected: "owner/repo",
        found: options.override,
        fix: "write the repository as owner/repo (e.g. --repo acme/widgets)",
      });
    }
    return parsed;
  }
  const remote = options.remote ?? "origin";
  const url = await getRemoteUrl(cwd, remote);
  if (!url) {
    throw new GithubError(
      `the repository has no "${remote}" remote`,
      { transient: false },
      {
        fix: `add the GitHub remote (git remote add ${remote} <url>), or name the repository with --repo owner/repo`,
      },
    );
  }
  const parsed = parseRepoUrl(url);
  if (!parsed) {
    // The URL may carry credentials: name only the remote.
    throw new GithubError(
      `cannot read owner/repo from the "${remote}" remote URL`,
      { transient: false },
      { fix: "name the repository with --repo owner/repo" },
    );
  }
  return parsed;
}
