/**
 * How the fake GitHub answers each REST and GraphQL route, on its in-memory state.
 */
import {
  type FakeGithubState,
  type FakeIssue,
  type FakePullRequest,
  findIssue,
  repoExists,
} from "./fake-github-state.js";
import { answerGraphql } from "./fake-graphql.js";

export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

const NOT_FOUND: Reply = {
  status: 404,
  body: { message: "Not Found", documentation_url: "https://docs.github.com/rest" },
};

function issueJson(issue: FakeIssue, apiUrl: string) {
  return {
    id: issue.number + 100_000,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    state_reason: issue.stateReason ?? null,
    html_url: `https://github.example/${issue.repo}/issues/${issue.number}`,
    url: `${apiUrl}/repos/${issue.repo}/issues/${issue.number}`,
    labels: issue.labels.map((name, index) => ({ id: index + 1, name })),
    user: { login: "octocat" },
    comments: issue.comments.length,
    ...(issue.pullRequest
      ? { pull_request: { url: `${apiUrl}/repos/${issue.repo}/pulls/${issue.number}` } }
      : {}),
  };
}

/** Slice `items` by `page`/`per_page` and add GitHub's Link header. */
function paginate(items: readonly unknown[], url: URL, origin: string): Reply {
  const perPage = Number(url.searchParams.get("per_page") ?? "30");
  const page = Number(url.searchParams.get("page") ?? "1");
  const lastPage = Math.max(1, Math.ceil(items.length / perPage));
  const links: string[] = [];
  const linkTo = (target: number, rel: string) => {
    const next = new URL(url.toString());
    next.searchParams.set("page", String(target));
    links.push(`<${origin}${next.pathname}${next.search}>; rel="${rel}"`);
  };
  if (page < lastPage) {
    linkTo(page + 1, "next");
    linkTo(lastPage, "last");
  }
  return {
    status: 200,
    body: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length > 0 ? { link: links.join(", ") } : {},
  };
}

function listIssues(state: FakeGithubState, repo: string, url: URL, apiUrl: string): Reply {
  const wantedState = url.searchParams.get("state") ?? "open";
  const labels = (url.searchParams.get("labels") ?? "")
    .split(",")
    .map((label) => label.trim().toLowerCase())
    .filter((label) => label !== "");
  const issues = state.issues
    .filter((issue) => issue.repo.toLowerCase() === repo.toLowerCase())
    .filter((issue) => wantedState === "all" || issue.state === wantedState)
    .filter((issue) =>
      labels.every((label) => issue.labels.some((name) => name.toLowerCase() === label)),
    )
    .sort((left, right) => right.number - left.number)
    .map((issue) => issueJson(issue, apiUrl));
  return paginate(issues, url, new URL(apiUrl).origin);
}

function issueRoute(
  state: FakeGithubState,
  request: { method: string; url: URL; body: unknown; apiUrl: string },
  repo: string,
  rest: string[],
): Reply {
  const issue = findIssue(state, repo, Number(rest[0]));
  if (!issue) return NOT_FOUND;
  const body = (request.body ?? {}) as Record<string, unknown>;
  const [, resource, name] = rest;
  const { method, apiUrl } = request;
  if (!resource && method === "GET") return { status: 200, body: issueJson(issue, apiUrl) };
  if (!resource && method === "PATCH") {
    if (body.state === "open" || body.state === "closed") issue.state = body.state;
    if (typeof body.state_reason === "string") issue.stateReason = body.state_reason;
    if (typeof body.title === "string") issue.title = body.title;
    return { status: 200, body: issueJson(issue, apiUrl) };
  }
  if (resource === "comments" && method === "GET") {
    const comments = issue.comments.map((comment) => ({
      id: comment.id,
      body: comment.body,
      user: { login: comment.author },
    }));
    return paginate(comments, request.url, new URL(apiUrl).origin);
  }
  if (resource === "comments" && method === "POST") {
    const comment = { id: state.nextId++, author: "closer-bot", body: String(body.body ?? "") };
    issue.comments.push(comment);
    const html_url = `https://github.example/${repo}/issues/${issue.number}#issuecomment-${comment.id}`;
    return { status: 201, body: { id: comment.id, body: comment.body, html_url } };
  }
  if (resource === "labels" && method === "POST" && !name) {
    for (const label of (body.labels as string[] | undefined) ?? []) {
      if (!issue.labels.includes(label)) issue.labels.push(label);
    }
    return { status: 200, body: issue.labels.map((label) => ({ name: label })) };
  }
  if (resource === "labels" && method === "DELETE" && name) {
    const label = decodeURIComponent(name);
    if (!issue.labels.includes(label))
      return { status: 404, body: { message: "Label does not exist" } };
    issue.labels = issue.labels.filter((existing) => existing !== label);
    return { status: 200, body: issue.labels.map((existing) => ({ name: existing })) };
  }
  return NOT_FOUND;
}

export function route(
  state: FakeGithubState,
  request: { method: string; url: URL; body: unknown; apiUrl: string },
): Reply {
  const pathname = request.url.pathname.replace(/^\/api\/v3(?=\/)/, "");
  if (request.method === "POST" && (pathname === "/graphql" || pathname === "/api/graphql")) {
    return { status: 200, body: answerGraphql(state, request.body as Record<string, never>) };
  }
  const parts = pathname.split("/").filter((part) => part !== "");
  if (parts[0] !== "repos" || !parts[1] || !parts[2]) return NOT_FOUND;
  const repo = `${parts[1]}/${parts[2]}`;
  if (!repoExists(state, repo)) return NOT_FOUND;
  const rest = parts.slice(4);
  if (parts[3] === "issues" && rest.length === 0 && request.method === "GET") {
    return listIssues(state, repo, request.url, request.apiUrl);
  }
  if (parts[3] === "issues" && rest.length > 0) return issueRoute(state, request, repo, rest);
  if (parts[3] === "pulls" && rest.length === 0 && request.method === "POST") {
    return createPull(state, repo, request);
  }
  if (parts[3] === "pulls" && rest.length === 0 && request.method === "GET") {
    return listPulls(state, repo, request);
  }
  return NOT_FOUND;
}

function pullJson(pull: FakePullRequest, apiUrl: string) {
  const owner = pull.repo.split("/")[0] ?? "";
  return {
    id: pull.number + 200_000,
    number: pull.number,
    state: pull.state,
    title: pull.title,
    body: pull.body,
    html_url: `https://github.example/${pull.repo}/pull/${pull.number}`,
    url: `${apiUrl}/repos/${pull.repo}/pulls/${pull.number}`,
    head: { ref: pull.head, label: `${owner}:${pull.head}` },
    base: { ref: pull.base, label: `${owner}:${pull.base}` },
  };
}

/** `head` as GitHub takes it: `branch`, or `owner:branch` of the repository's owner. */
function headBranch(head: string): string {
  return head.includes(":") ? head.slice(head.indexOf(":") + 1) : head;
}

/** POST /repos/{o}/{r}/pulls: 422 when an open pull request has the same head and base, as on GitHub. */
function createPull(
  state: FakeGithubState,
  repo: string,
  request: { body: unknown; apiUrl: string },
): Reply {
  const body = (request.body ?? {}) as Record<string, string>;
  const head = headBranch(body.head ?? "");
  const base = body.base ?? "";
  const open = state.pullRequests.find(
    (pull) =>
      pull.repo === repo && pull.state === "open" && pull.head === head && pull.base === base,
  );
  if (open !== undefined || head === "" || base === "") {
    const owner = repo.split("/")[0] ?? "";
    const message =
      open === undefined
        ? "head and base are required"
        : `A pull request already exists for ${owner}:${head}.`;
    return {
      status: 422,
      body: {
        message: "Validation Failed",
        errors: [{ resource: "PullRequest", code: "custom", message }],
        documentation_url: "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
      },
    };
  }
  const pull: FakePullRequest = {
    repo,
    number: state.issues.length + state.pullRequests.length + 1,
    head,
    base,
    title: body.title ?? "",
    body: body.body ?? "",
    state: "open",
  };
  state.pullRequests.push(pull);
  return { status: 201, body: pullJson(pull, request.apiUrl) };
}

/** GET /repos/{o}/{r}/pulls?state=open&head=owner:branch&base=…: GitHub's filters, paginated. */
function listPulls(
  state: FakeGithubState,
  repo: string,
  request: { url: URL; apiUrl: string },
): Reply {
  const { searchParams } = request.url;
  const wantedState = searchParams.get("state") ?? "open";
  const head = searchParams.get("head");
  const base = searchParams.get("base");
  const owner = repo.split("/")[0]?.toLowerCase() ?? "";
  const pulls = state.pullRequests
    .filter((pull) => pull.repo.toLowerCase() === repo.toLowerCase())
    .filter((pull) => wantedState === "all" || pull.state === wantedState)
    .filter(
      (pull) =>
        head === null ||
        !head.includes(":") ||
        (head.slice(0, head.indexOf(":")).toLowerCase() === owner &&
          headBranch(head) === pull.head),
    )
    .filter((pull) => base === null || pull.base === base)
    .sort((left, right) => right.number - left.number)
    .map((pull) => pullJson(pull, request.apiUrl));
  return paginate(pulls, request.url, new URL(request.apiUrl).origin);
}
