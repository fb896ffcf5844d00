import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeGithub, startFakeGithub } from "../../test/doubles/fake-github/index.js";
import { CloserError, GithubError } from "../errors.js";
import { makeGithubClient } from "./client.js";

const TOKEN = "ghp_secretTokenValue1234567890";

let fake: FakeGithub;

beforeEach(async () => {
  fake = await startFakeGithub({
    token: TOKEN,
    issues: [
      {
        number: 12,
        title: "Add a login page",
        body: "The form needs email and password.",
        labels: ["ready", "ui"],
        comments: [
          { author: "alice", body: "Use the shared form component." },
          { author: "bob", body: "And add a test." },
        ],
      },
      { number: 13, title: "Fix typo", labels: ["ready"] },
      { number: 14, title: "Closed one", labels: ["ready"], state: "closed" },
      { number: 15, title: "A pull request", labels: ["ready"], pullRequest: true },
      { number: 16, title: "Unlabelled" },
      { repo: "acme/other", number: 1, title: "Elsewhere", labels: ["ready"] },
    ],
    projects: [
      {
        owner: "acme",
        number: 5,
        items: [
          { number: 12 },
          { draft: "an idea" },
          { number: 14 },
          { number: 15 },
          { repo: "acme/other", number: 1 },
          { number: 13 },
          { number: 16 },
        ],
      },
      { owner: "octocat", ownerType: "user", number: 2, items: [{ number: 13 }] },
    ],
    projectPageSize: 2,
  });
});
afterEach(async () => {
  await fake.close();
});

const client = (options: Partial<Parameters<typeof makeGithubClient>[0]> = {}) =>
  makeGithubClient({ owner: "acme", repo: "widgets", token: TOKEN, apiUrl: fake.url, ...options });

async function failure(promise: Promise<unknown>): Promise<CloserError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof CloserError)) throw new Error(`expected a CloserError, got ${error}`);
  return error;
}

function expectNoToken(error: CloserError): void {
  const text = [
    error.message,
    error.describe(),
    error.fields.detail ?? "",
    JSON.stringify(error.fields),
  ].join("\n");
  expect(text).not.toContain(TOKEN);
}

describe("reading issues", () => {
  it("maps an issue and all its comments", async () => {
    const issue = await client().getIssue(12);
    expect(issue).toEqual({
      number: 12,
      title: "Add a login page",
      body: "The form needs email and password.",
      url: "https://github.example/acme/widgets/issues/12",
      state: "open",
      labels: ["ready", "ui"],
      comments: [
        { author: "alice", body: "Use the shared form component." },
        { author: "bob", body: "And add a test." },
      ],
    });
    expect(fake.requests.every((request) => request.authorization === `token ${TOKEN}`)).toBe(true);
  });

  it("lists open issues with a label, leaving out pull requests, across pages", async () => {
    for (let number = 100; number < 230; number++) {
      fake.state.issues.push({
        repo: "acme/widgets",
        number,
        title: `bulk ${number}`,
        body: "",
        state: "open",
        labels: ["bulk"],
        comments: [],
        pullRequest: false,
      });
    }
    const ready = await client().listIssues({ label: "ready" });
    expect(ready.map((issue) => issue.number).sort()).toEqual([12, 13]);
    expect(ready[0]).toMatchObject({ repository: "acme/widgets", state: "open" });
    const bulk = await client().listIssues({ label: "bulk" });
    expect(bulk).toHaveLength(130);
    const everything = await client().listIssues();
    expect(everything.map((issue) => issue.number)).not.toContain(15);
    expect(everything.map((issue) => issue.number)).not.toContain(14);
  });

  it("honours GITHUB_API_URL and GITHUB_TOKEN from the environment", async () => {
    const fromEnv = makeGithubClient({
      owner: "acme",
      repo: "widgets",
      env: { GITHUB_API_URL: `${fake.url}/`, GITHUB_TOKEN: TOKEN },
    });
    expect(fromEnv.apiUrl).toBe(fake.url);
    expect((await fromEnv.getIssue(13)).title).toBe("Fix typo");
    expect(fake.requests.at(-1)?.path).toMatch(/^\/api\/v3\/repos\/acme\/widgets\/issues\/13/);
  });
});

describe("projects", () => {
  it("lists open issues of this repository on an organization board, every page, by label", async () => {
    const issues = await client().listProjectIssues({ project: 5 });
    expect(issues.map((issue) => issue.number)).toEqual([12, 13, 16]);
    const labelled = await client().listProjectIssues({ project: 5, label: "UI" });
    expect(labelled.map((issue) => issue.number)).toEqual([12]);
    const graphqlCalls = fake.requests.filter((request) => request.path === "/api/graphql");
    expect(graphqlCalls.length).toBeGreaterThanOrEqual(4);
  });

  it("falls back to a user board", async () => {
    const issues = await client().listProjectIssues({ project: 2, owner: "octocat" });
    expect(issues).toEqual([expect.objectContaining({ number: 13, labels: ["ready"] })]);
    const roots = fake.requests
      .filter((request) => request.path === "/api/graphql")
      .map(
        (request) => (request.body as { query: string }).query.match(/(organization|user)\(/)?.[1],
      );
    expect(roots).toEqual(["organization", "user"]);
  });

  it("says when the project does not exist", async () => {
    const error = await failure(client().listProjectIssues({ project: 99 }));
    expect(error.code).toBe("github_error");
    expect(error.message).toContain("project #99 of acme");
  });
});

describe("writing", () => {
  it("adds and removes labels, comments, closes and opens pull requests", async () => {
    const github = client();
    await github.addLabels(13, ["done"]);
    await github.removeLabel(13, "ready");
    await github.removeLabel(13, "never-there");
    const url = await github.comment(13, "All checks pass.");
    await github.closeIssue(13);
    const pull = await github.createPullRequest({
      head: "closer/issue-13",
      base: "main",
      title: "t",
      body: "b",
    });
    const issue = fake.state.issues.find((candidate) => candidate.number === 13);
    expect(issue).toMatchObject({ labels: ["done"], state: "closed", stateReason: "completed" });
    expect(issue?.comments.at(-1)?.body).toBe("All checks pass.");
    expect(url).toContain("/issues/13#issuecomment-");
    expect(pull).toMatch(/\/pull\/\d+$/);
    expect(fake.state.pullRequests[0]).toMatchObject({ head: "closer/issue-13", base: "main" });
  });
});

describe("errors", () => {
  it("401: asks for a token with repo scope, never showing the token", async () => {
    const error = await failure(client({ token: `${TOKEN}-wrong` }).getIssue(12));
    expect(error.code).toBe("github_error");
    expect(error.message).toContain("401");
    expect(error.fields.fix).toBe("set GITHUB_TOKEN to a token with repo scope");
    expectNoToken(error);
    const missing = await failure(client({ token: undefined, env: {} }).getIssue(12));
    expect(missing.message).toMatch(/needs a token/);
  });

  it("404: names owner/repo#N", async () => {
    const error = await failure(client().getIssue(404));
    expect(error.message).toContain("acme/widgets#404");
    expect(error.message).toContain("not found");
    const repoError = await failure(client({ repo: "nothing" }).listIssues());
    expect(repoError.message).toContain("acme/nothing");
  });

  it("403 rate limit: says when it resets", async () => {
    const nowMs = Date.parse("2030-01-01T00:00:00Z");
    fake.rateLimit({ resetEpochSeconds: nowMs / 1000 + 600 });
    const error = await failure(client({ now: () => nowMs }).getIssue(12));
    expect(error.message).toContain("rate limit");
    expect(error.message).toContain("2030-01-01T00:10:00.000Z");
    expect(error.message).toContain("in 10 min");
    expectNoToken(error);
  });

  it("429 with retry-after: says how long to wait", async () => {
    const nowMs = Date.parse("2030-01-01T00:00:00Z");
    fake.rateLimit({ status: 429, retryAfterSeconds: 120 });
    const error = await failure(client({ now: () => nowMs }).addLabels(12, ["x"]));
    expect(error.message).toContain("2030-01-01T00:02:00.000Z");
  });

  it("a plain 403 is a permission problem, and a token echoed by a server is redacted", async () => {
    fake.failWith({ status: 403, message: `Resource not accessible with ${TOKEN}` });
    const error = await failure(client().closeIssue(12));
    expect(error.message).toContain("refused to close");
    expect(error.message).toContain("***");
    expectNoToken(error);
  });

  it("says when GitHub cannot be reached", async () => {
    const url = fake.url;
    await fake.close();
    const error = await failure(client({ apiUrl: url }).getIssue(12));
    expect(error.message).toContain("could not reach GitHub");
    fake = await startFakeGithub();
  });

  it("types every failure with GitHub's status and whether trying again may help", async () => {
    const answered = async (status: number) => {
      fake.failWith({ status, message: "no" });
      return failure(client().getIssue(12));
    };
    for (const status of [401, 403, 404, 422]) {
      const error = await answered(status);
      expect(error).toBeInstanceOf(GithubError);
      expect(error).toMatchObject({ code: "github_error", status, transient: false });
    }
    for (const status of [500, 502, 503]) {
      expect(await answered(status)).toMatchObject({ status, transient: true });
    }
    fake.rateLimit({});
    expect(await failure(client().getIssue(12))).toMatchObject({ status: 403, transient: true });
    fake.rateLimit({ status: 429, retryAfterSeconds: 1 });
    expect(await failure(client().getIssue(12))).toMatchObject({ status: 429, transient: true });
    const url = fake.url;
    await fake.close();
    const unreachable = await failure(client({ apiUrl: url }).getIssue(12));
    expect(unreachable).toMatchObject({ status: undefined, transient: true });
    fake = await startFakeGithub();
  });
});
