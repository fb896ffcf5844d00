import { GraphqlResponseError } from "@octokit/graphql";
import { describe, expect, it } from "vitest";
import { GithubError } from "../errors.js";
import { type GraphqlCall, listProjectIssues } from "./project-issues.js";

const REPOSITORY = { owner: "acme", repo: "widgets" };

/** A GraphQL call that answers with an error, as GitHub does (HTTP 200, an `errors` list). */
function answeringError(error: { type: string; message: string }): GraphqlCall {
  return async () => {
    const located = { path: ["organization"] as [string], extensions: {} };
    const locations: [{ line: number; column: number }] = [{ line: 1, column: 1 }];
    throw new GraphqlResponseError(
      { method: "POST", url: "/graphql" },
      {},
      { data: undefined, errors: [{ ...error, ...located, locations }] },
    );
  };
}

async function failure(graphql: GraphqlCall): Promise<GithubError> {
  const error = await listProjectIssues(graphql, REPOSITORY, { project: 5 }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof GithubError)) throw new Error(`expected a GithubError, got ${error}`);
  return error;
}

describe("GraphQL failures of a project query", () => {
  it("a rate limit is transient", async () => {
    const error = await failure(
      answeringError({ type: "RATE_LIMITED", message: "API rate limit exceeded" }),
    );
    expect(error).toMatchObject({ code: "github_error", status: undefined, transient: true });
  });

  it("a missing scope is not", async () => {
    const error = await failure(
      answeringError({ type: "INSUFFICIENT_SCOPES", message: "needs the read:project scope" }),
    );
    expect(error.transient).toBe(false);
    expect(error.fields.fix).toBe("give GITHUB_TOKEN the read:project scope");
  });

  it("a project that exists for neither an organization nor a user is not", async () => {
    const error = await failure(answeringError({ type: "NOT_FOUND", message: "no such owner" }));
    expect(error.message).toBe("project #5 of acme not found");
    expect(error.transient).toBe(false);
  });
});
