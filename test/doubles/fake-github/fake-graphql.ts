/**
 * The slice of GitHub's GraphQL API closer uses: `organization(login)` or
 * `user(login)` → `projectV2(number)` → paginated `items`, answering like
 * GitHub does (null plus a NOT_FOUND error for an unknown owner or project).
 */
import { type FakeGithubState, findIssue } from "./fake-github-state.js";

interface GraphqlRequest {
  readonly query?: string;
  readonly variables?: Record<string, unknown>;
}

type OwnerKind = "organization" | "user";

function notFound(kind: OwnerKind, login: string) {
  const typeName = kind === "organization" ? "an Organization" : "a User";
  return {
    data: { [kind]: null },
    errors: [
      {
        type: "NOT_FOUND",
        path: [kind],
        message: `Could not resolve to ${typeName} with the login of '${login}'.`,
      },
    ],
  };
}

function itemContent(
  state: FakeGithubState,
  item: FakeGithubState["projects"][number]["items"][number],
) {
  if ("draft" in item) return { __typename: "DraftIssue" };
  const repo = item.repo ?? state.defaultRepo;
  const issue = findIssue(state, repo, item.number);
  if (!issue) return null;
  if (issue.pullRequest) return { __typename: "PullRequest" };
  return {
    __typename: "Issue",
    number: issue.number,
    title: issue.title,
    state: issue.state === "closed" ? "CLOSED" : "OPEN",
    url: `https://github.example/${issue.repo}/issues/${issue.number}`,
    repository: { nameWithOwner: issue.repo },
    labels: { nodes: issue.labels.map((name) => ({ name })) },
  };
}

/** Answer one GraphQL request body; returns the JSON to send with status 200. */
export function answerGraphql(state: FakeGithubState, request: GraphqlRequest): unknown {
  const query = request.query ?? "";
  const root = query.match(/\{\s*(organization|user)\s*\(/)?.[1] as OwnerKind | undefined;
  if (!root) {
    return { errors: [{ message: "the fake GitHub only answers projectV2 item queries" }] };
  }
  const variables = request.variables ?? {};
  const login = String(variables.login ?? "");
  const projectNumber = Number(variables.number);
  const owned = state.projects.filter(
    (project) => project.owner.toLowerCase() === login.toLowerCase(),
  );
  if (
    owned.length === 0 ||
    owned.some((project) => (project.ownerType ?? "organization") !== root)
  ) {
    return notFound(root, login);
  }
  const project = owned.find((candidate) => candidate.number === projectNumber);
  if (!project) {
    return {
      data: { [root]: { projectV2: null } },
      errors: [
        {
          type: "NOT_FOUND",
          path: [root, "projectV2"],
          message: `Could not resolve to a ProjectV2 with the number ${projectNumber}.`,
        },
      ],
    };
  }
  const start = typeof variables.cursor === "string" ? Number(variables.cursor) : 0;
  const end = start + state.projectPageSize;
  const nodes = project.items
    .slice(start, end)
    .map((item) => ({ content: itemContent(state, item) }));
  const hasNextPage = end < project.items.length;
  return {
    data: {
      [root]: {
        projectV2: {
          items: {
            pageInfo: { hasNextPage, endCursor: hasNextPage ? String(end) : null },
            nodes,
          },
        },
      },
    },
  };
}
