/**
 * In-memory state of the fake GitHub: issues, comments, labels, projects and
 * pull requests, seeded by a test.
 */

/** An issue (or pull request, which GitHub lists among issues) to start with. */
export interface FakeIssueSeed {
  /** `owner/name`; default: the seed's `repo`. */
  readonly repo?: string;
  readonly number: number;
  readonly title: string;
  readonly body?: string;
  readonly state?: "open" | "closed";
  readonly labels?: readonly string[];
  readonly comments?: readonly { readonly author: string; readonly body: string }[];
  readonly pullRequest?: boolean;
}

/** A Projects v2 board. */
export interface FakeProjectSeed {
  readonly owner: string;
  readonly ownerType?: "organization" | "user";
  readonly number: number;
  /** Issues on the board (by repository and number), or draft items. */
  readonly items: readonly (
    | { readonly repo?: string; readonly number: number }
    | { readonly draft: string }
  )[];
}

export interface FakeGithubSeed {
  /** Default repository of issues: `acme/widgets`. */
  readonly repo?: string;
  /** When set, every request must carry this token, else 401 Bad credentials. */
  readonly token?: string;
  readonly issues?: readonly FakeIssueSeed[];
  readonly projects?: readonly FakeProjectSeed[];
  /** Items per GraphQL page (default 100, as the client asks). */
  readonly projectPageSize?: number;
}

export interface FakeComment {
  readonly id: number;
  readonly author: string;
  readonly body: string;
}

export interface FakeIssue {
  readonly repo: string;
  readonly number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  stateReason?: string;
  labels: string[];
  comments: FakeComment[];
  readonly pullRequest: boolean;
}

export interface FakePullRequest {
  readonly repo: string;
  readonly number: number;
  /** The head branch's name (without its owner). */
  readonly head: string;
  readonly base: string;
  readonly title: string;
  readonly body: string;
  state: "open" | "closed";
}

export interface FakeGithubState {
  readonly defaultRepo: string;
  readonly token?: string;
  readonly issues: FakeIssue[];
  readonly projects: FakeProjectSeed[];
  readonly pullRequests: FakePullRequest[];
  readonly projectPageSize: number;
  nextId: number;
}

/** Build the state from a seed. */
export function makeFakeGithubState(seed: FakeGithubSeed = {}): FakeGithubState {
  const defaultRepo = seed.repo ?? "acme/widgets";
  let nextId = 1000;
  const issues = (seed.issues ?? []).map(
    (issue): FakeIssue => ({
      repo: issue.repo ?? defaultRepo,
      number: issue.number,
      title: issue.title,
      body: issue.body ?? "",
      state: issue.state ?? "open",
      labels: [...(issue.labels ?? [])],
      comments: (issue.comments ?? []).map((comment) => ({ id: nextId++, ...comment })),
      pullRequest: issue.pullRequest ?? false,
    }),
  );
  return {
    defaultRepo,
    ...(seed.token ? { token: seed.token } : {}),
    issues,
    projects: [...(seed.projects ?? [])],
    pullRequests: [],
    projectPageSize: seed.projectPageSize ?? 100,
    nextId,
  };
}

/** The issue `repo#number`, if present. */
export function findIssue(
  state: FakeGithubState,
  repo: string,
  issueNumber: number,
): FakeIssue | undefined {
  return state.issues.find(
    (issue) => issue.repo.toLowerCase() === repo.toLowerCase() && issue.number === issueNumber,
  );
}

/** True when some issue lives in `repo` (the fake's notion of an existing repository). */
export function repoExists(state: FakeGithubState, repo: string): boolean {
  const wanted = repo.toLowerCase();
  return (
    wanted === state.defaultRepo.toLowerCase() ||
    state.issues.some((issue) => issue.repo.toLowerCase() === wanted)
  );
}
