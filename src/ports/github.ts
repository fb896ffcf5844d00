export interface IssueComment {
  readonly author: string;
  readonly body: string;
}

/** An issue with what a prompt needs. */
export interface Issue {
  readonly number: number;
  readonly title: string;
  readonly body: string;
  readonly url: string;
  readonly state: "open" | "closed";
  readonly labels: readonly string[];
  readonly comments: readonly IssueComment[];
}

/** An issue in a list (no body, no comments). */
export interface IssueSummary {
  readonly number: number;
  readonly title: string;
  readonly url: string;
  readonly state: "open" | "closed";
  readonly labels: readonly string[];
  /** `owner/name` of the repository the issue belongs to. */
  readonly repository: string;
}

export interface ProjectIssuesQuery {
  /** The project number (from its URL). */
  readonly project: number;
  /** Only issues with this label. */
  readonly label?: string;
  /** Login of the organization or user that owns the board; default: the repository owner. */
  readonly owner?: string;
}

export interface CreatePullRequestOptions {
  readonly head: string;
  readonly base: string;
  readonly title: string;
  readonly body: string;
}

/** The GitHub REST/GraphQL API as closer uses it (github/client.ts over Octokit; a fake server in tests). */
export interface GithubClient {
  readonly owner: string;
  readonly repo: string;
  readonly apiUrl: string;
  getIssue(issue: number): Promise<Issue>;
  /** Open issues (pull requests left out), every page. */
  listIssues(options?: { readonly label?: string }): Promise<IssueSummary[]>;
  /** Open issues of this repository on a Projects v2 board of `owner` (default: the repo owner). */
  listProjectIssues(options: ProjectIssuesQuery): Promise<IssueSummary[]>;
  addLabels(issue: number, labels: readonly string[]): Promise<void>;
  /** Removing a label the issue does not have is not an error. */
  removeLabel(issue: number, label: string): Promise<void>;
  closeIssue(issue: number): Promise<void>;
  /** Every comment of the issue, oldest first. */
  listComments(issue: number): Promise<IssueComment[]>;
  /** Returns the comment's URL. */
  comment(issue: number, body: string): Promise<string>;
  /** Returns the pull request's URL. */
  createPullRequest(options: CreatePullRequestOptions): Promise<string>;
  /** The URL of the open pull request from `branch` of this repository, if there is one. */
  findOpenPullRequest(branch: string): Promise<string | undefined>;
}
