/**
 * Issues on a GitHub Projects v2 board, through GraphQL: the owner is tried as
 * an organization, then as a user; every page of items is read.
 */
import { GraphqlResponseError } from "@octokit/graphql";
import { GithubError } from "../errors.js";
import type { IssueSummary, ProjectIssuesQuery } from "../ports/github.js";

/** Which board, and which of its issues. */
/** The GraphQL call of an Octokit instance (`octokit.graphql`). */
export type GraphqlCall = (query: string, variables: Record<string, unknown>) => Promise<unknown>;

type OwnerKind = "organization" | "user";

interface ItemContent {
  readonly __typename?: string;
  readonly number?: number;
  readonly title?: string;
  readonly state?: string;
  readonly url?: string;
  readonly repository?: { readonly nameWithOwner?: string };
  readonly labels?: { readonly nodes?: readonly ({ readonly name?: string } | null)[] };
}

interface ItemsPage {
  readonly pageInfo: { readonly hasNextPage: boolean; readonly endCursor: string | null };
  readonly nodes: readonly ({ readonly content?: ItemContent | null } | null)[];
}

function projectQuery(kind: OwnerKind): string {
  return `query ($login: String!, $number: Int!, $cursor: String) {
  ${kind}(login: $login) {
    projectV2(number: $number) {
      items(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes {
          content {
            __typename
            ... on Issue {
              number title state url
              repository { nameWithOwner }
              labels(first: 100) { nodes { name } }
            }
          }
        }
      }
    }
  }
}`;
}

function pageOf(data: unknown, kind: OwnerKind): ItemsPage | undefined {
  const owner = (data as Record<string, { projectV2?: { items?: ItemsPage } | null } | null>)?.[
    kind
  ];
  return owner?.projectV2?.items ?? undefined;
}

/** One page, or undefined when the owner or the project does not exist under that kind. */
async function fetchPage(
  graphql: GraphqlCall,
  kind: OwnerKind,
  variables: Record<string, unknown>,
): Promise<ItemsPage | undefined> {
  try {
    return pageOf(await graphql(projectQuery(kind), variables), kind);
  } catch (error) {
    if (!(error instanceof GraphqlResponseError)) throw error;
    const errors = (error.errors ?? []) as readonly { type?: string; message?: string }[];
    if (errors.length > 0 && errors.every((entry) => entry.type === "NOT_FOUND")) {
      return pageOf(error.data, kind);
    }
    const messages = errors.map((entry) => entry.message ?? "").join("; ");
    const rateLimited =
      errors.some((entry) => entry.type === "RATE_LIMITED") || /rate limit/i.test(messages);
    throw new GithubError(
      `GitHub GraphQL query failed: ${messages}`,
      { transient: rateLimited },
      { fix: /scope/i.test(messages) ? "give GITHUB_TOKEN the read:project scope" : undefined },
    );
  }
}

async function readAllItems(
  graphql: GraphqlCall,
  kind: OwnerKind,
  login: string,
  project: number,
): Promise<ItemContent[] | undefined> {
  const contents: ItemContent[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await fetchPage(graphql, kind, { login, number: project, cursor });
    if (!page) return cursor === null ? undefined : contents;
    for (const node of page.nodes) if (node?.content) contents.push(node.content);
    if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor) return contents;
    cursor = page.pageInfo.endCursor;
  }
}

function toSummary(content: ItemContent): IssueSummary {
  return {
    number: content.number ?? 0,
    title: content.title ?? "",
    url: content.url ?? "",
    state: content.state === "CLOSED" ? "closed" : "open",
    labels: (content.labels?.nodes ?? []).flatMap((label) => (label?.name ? [label.name] : [])),
    repository: content.repository?.nameWithOwner ?? "",
  };
}

/**
 * Open issues of `repository` on the board. A board may hold issues of other
 * repositories too; those cannot be worked on in this checkout and are left out.
 */
export async function listProjectIssues(
  graphql: GraphqlCall,
  repository: { readonly owner: string; readonly repo: string },
  query: ProjectIssuesQuery,
): Promise<IssueSummary[]> {
  const login = query.owner ?? repository.owner;
  const items =
    (await readAllItems(graphql, "organization", login, query.project)) ??
    (await readAllItems(graphql, "user", login, query.project));
  if (!items) {
    throw new GithubError(
      `project #${query.project} of ${login} not found`,
      { transient: false },
      {
        fix: "check the project number and owner, and that GITHUB_TOKEN has the read:project scope",
      },
    );
  }
  const wanted = `${repository.owner}/${repository.repo}`.toLowerCase();
  const label = query.label?.toLowerCase();
  return items
    .filter((content) => content.__typename === "Issue" && content.state === "OPEN")
    .filter((content) => content.repository?.nameWithOwner?.toLowerCase() === wanted)
    .map(toSummary)
    .filter((issue) => !label || issue.labels.some((name) => name.toLowerCase() === label));
}
