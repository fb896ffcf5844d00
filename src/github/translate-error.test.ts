import { describe, expect, it } from "vitest";
import { GithubError } from "../errors.js";
import { translateGithubError } from "./translate-error.js";

const CONTEXT = {
  subject: "issue acme/widgets#12",
  action: "read",
  apiUrl: "https://api.github.com",
  hasToken: true,
  now: () => 0,
};

/** What Octokit's RequestError carries: a status, and the response when GitHub answered. */
function requestError(status: number, headers?: Record<string, string>) {
  return {
    status,
    message: "the server said no",
    ...(headers === undefined ? {} : { response: { headers } }),
  };
}

interface StatusCase {
  readonly name: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly transient: boolean;
}

describe("translateGithubError", () => {
  it.each<StatusCase>([
    { name: "401 bad credentials", status: 401, headers: {}, transient: false },
    { name: "403 permission", status: 403, headers: {}, transient: false },
    { name: "404 not found", status: 404, headers: {}, transient: false },
    { name: "422 unprocessable", status: 422, headers: {}, transient: false },
    {
      name: "403 rate limit",
      status: 403,
      headers: { "x-ratelimit-remaining": "0" },
      transient: true,
    },
    {
      name: "403 with retry-after",
      status: 403,
      headers: { "retry-after": "30" },
      transient: true,
    },
    { name: "429", status: 429, headers: {}, transient: true },
    { name: "500", status: 500, headers: {}, transient: true },
    { name: "503", status: 503, headers: {}, transient: true },
  ])("$name: status $status, transient $transient", ({ status, headers, transient }) => {
    const error = translateGithubError(requestError(status, headers), CONTEXT);
    expect(error).toBeInstanceOf(GithubError);
    expect(error.code).toBe("github_error");
    expect(error.status).toBe(status);
    expect(error.transient).toBe(transient);
  });

  it("gives no status when GitHub did not answer, and calls it transient", () => {
    // Octokit reports a network failure as status 500 without a response.
    const error = translateGithubError(requestError(500), CONTEXT);
    expect(error.message).toContain("could not reach GitHub");
    expect(error.status).toBeUndefined();
    expect(error.transient).toBe(true);
  });

  it("treats a failure without any HTTP status as no answer", () => {
    const error = translateGithubError(new TypeError("fetch failed"), CONTEXT);
    expect(error.status).toBeUndefined();
    expect(error.transient).toBe(true);
  });

  it("keeps the status in found for the record", () => {
    expect(translateGithubError(requestError(404, {}), CONTEXT).fields.found).toBe("HTTP 404");
  });
});
