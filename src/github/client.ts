/**
 * The GitHub REST (and Projects v2 GraphQL) calls closer makes, on Octokit.
 * Every failure becomes a CloserError `github_error`; the token never appears
 * in a message.
 */
import { Octokit } from "@octokit/rest";
import { CloserError } from "../errors.js";
import type { GithubClient, IssueComment } from "../ports/github.js";
import { listProjectIssues } from "./project-issues.js";
import { translateGithubError } from "./translate-error.js";

/** The public GitHub API; GITHUB_API_URL overrides it (GitHub Enterprise). */
const DEFAULT_GITHUB_API_URL = "https://api.github.com";

export interface GithubClientOptions {
  readonly owner: string;
  readonly repo: string;
  /** Default: GITHUB_TOKEN from `env`. */
  readonly token?: string;
  /** Default: GITHUB_API_URL from `env`, else https://api.github.com. */
  readonly apiUrl?: string;
  /** Where the defaults are read from; default: process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Injected for tests (rate-limit reset times). */
  readonly now?: () => number;
}

const silentLog = { debug() {}, info() {}, warn() {}, error() {} };

function labelNames(labels: readonly (string | { name?: string | null })[]): string[] {
  return labels
    .map((label) => (typeof label === "string" ? label : (label.name ?? "")))
    .filter((name) => name !== "");
}

function isNotFound(error: unknown): boolean {
  return (error as { status?: unknown } | null)?.status === 404;
}

/** A GitHub client for one repository. */
export function makeGithubClient(options: GithubClientOptions): GithubClient {
  const env = options.env ?? process.env;
  const token = options.token ?? (env.GITHUB_TOKEN || undefined);
  const apiUrl = (options.apiUrl ?? (env.GITHUB_API_URL || DEFAULT_GITHUB_API_URL)).replace(
    /\/+$/,
    "",
  );
  const now = options.now ?? Date.now;
  const { owner, repo } = options;
  const octokit = new Octokit({
    ...(token ? { auth: token } : {}),
    baseUrl: apiUrl,
    userAgent: "closer",
    log: silentLog,
    request: { retries: 0 },
  });
  const repoName = `${owner}/${repo}`;

  async function call<T>(action: string, subject: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (error instanceof CloserError) throw error;
      throw translateGithubError(error, {
        action,
        subject,
        apiUrl,
        hasToken: token !== undefined,
        now,
        ...(token ? { token } : {}),
      });
    }
  }
  const issueName = (issue: number) => `issue ${repoName}#${issue}`;
  const readComments = async (issue: number): Promise<IssueComment[]> => {
    const comments = await octokit.paginate(octokit.rest.issues.listComments, {
      owner,
      repo,
      issue_number: issue,
      per_page: 100,
    });
    return comments.map((comment) => ({
      author: comment.user?.login ?? "ghost",
      body: comment.body ?? "",
    }));
  };

  return {
    owner,
    repo,
    apiUrl,
    getIssue: (issue) =>
      call("read", issueName(issue), async () => {
        const { data } = await octokit.rest.issues.get({ owner, repo, issue_number: issue });
        const comments = await readComments(issue);
        return {
          number: data.number,
          title: data.title,
          body: data.body ?? "",
          url: data.html_url,
          state: data.state === "closed" ? "closed" : "open",
          labels: labelNames(data.labels),
          comments,
        };
      }),
    listIssues: (query = {}) =>
      call("list issues of", `repository ${repoName}`, async () => {
        const issues = await octokit.paginate(octokit.rest.issues.listForRepo, {
          owner,
          repo,
          state: "open",
          per_page: 100,
          ...(query.label ? { labels: query.label } : {}),
        });
        return issues
          .filter((issue) => !issue.pull_request)
          .map((issue) => ({
            number: issue.number,
            title: issue.title,
            url: issue.html_url,
            state: issue.state === "closed" ? ("closed" as const) : ("open" as const),
            labels: labelNames(issue.labels),
            repository: repoName,
          }));
      }),
    listProjectIssues: (query) =>
      call("list issues of", `project #${query.project} of ${query.owner ?? owner}`, () =>
        listProjectIssues(octokit.graphql, { owner, repo }, query),
      ),
    addLabels: (issue, labels) =>
      call("add labels to", issueName(issue), async () => {
        if (labels.length === 0) return;
        await octokit.rest.issues.addLabels({
          owner,
          repo,
          issue_number: issue,
          labels: [...labels],
        });
      }),
    removeLabel: (issue, label) =>
      call("remove a label from", issueName(issue), async () => {
        try {
          await octokit.rest.issues.removeLabel({ owner, repo, issue_number: issue, name: label });
        } catch (error) {
          // 404 means the label was not on the issue: already in the wanted state.
          if (!isNotFound(error)) throw error;
        }
      }),
    closeIssue: (issue) =>
      call("close", issueName(issue), async () => {
        await octokit.rest.issues.update({
          owner,
          repo,
          issue_number: issue,
          state: "closed",
          state_reason: "completed",
        });
      }),
    listComments: (issue) =>
      call("read the comments of", issueName(issue), () => readComments(issue)),
    comment: (issue, body) =>
      call("comment on", issueName(issue), async () => {
        const { data } = await octokit.rest.issues.createComment({
          owner,
          repo,
          issue_number: issue,
          body,
        });
        return data.html_url;
      }),
    createPullRequest: (request) =>
      call("open a pull request on", `repository ${repoName}`, async () => {
        const { data } = await octokit.rest.pulls.create({ owner, repo, ...request });
        return data.html_url;
      }),
    findOpenPullRequest: (branch) =>
      call("list the pull requests of", `repository ${repoName}`, async () => {
        const { data } = await octokit.rest.pulls.list({
          owner,
          repo,
          head: `${owner}:${branch}`,
          state: "open",
          per_page: 1,
        });
        return data[0]?.html_url;
      }),
  };
}
