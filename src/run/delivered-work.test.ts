import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeGithub, startFakeGithub } from "../../test/doubles/fake-github/index.js";
import { makeGithubClient } from "../github/client.js";
import { pullRequestOnce } from "./delivered-work.js";

const TOKEN = "ghp_deliveryToken0123456789";
let fake: FakeGithub;

beforeEach(async () => {
  fake = await startFakeGithub({ token: TOKEN, issues: [{ number: 4, title: "Fix the widget" }] });
});
afterEach(async () => {
  await fake.close();
});

const posts = () => fake.requests.filter((request) => request.method === "POST").length;

describe("docs/queue.md#exactly-once: a run's pull request is opened once", () => {
  it("an attempt that finds the branch's pull request open takes it and opens none", async () => {
    const client = makeGithubClient({
      owner: "acme",
      repo: "widgets",
      token: TOKEN,
      apiUrl: fake.url,
    });
    const of = { client, number: 4, title: "Fix the widget", summary: "fixed", base: "main" };
    const first = await pullRequestOnce({ ...of, runId: "run-a" })("closer/issue-4");
    // A later attempt of the run — on another machine, without the first one's record.
    const second = await pullRequestOnce({ ...of, runId: "run-a" })("closer/issue-4");

    expect(second).toBe(first);
    expect(posts()).toBe(1);
    expect(fake.state.pullRequests).toHaveLength(1);
    expect(fake.state.pullRequests[0]).toMatchObject({ head: "closer/issue-4", base: "main" });
    expect(fake.state.pullRequests[0]?.body).toContain("Closes #4");
    expect(fake.state.pullRequests[0]?.body).toContain("<!-- closer run run-a pull-request -->");
    const lookups = fake.requests.filter((request) => request.method === "GET");
    expect(
      lookups.map((request) => new URL(request.path, fake.url).searchParams.get("head")),
    ).toEqual(["acme:closer/issue-4", "acme:closer/issue-4"]);
  });

  it("a closed pull request is not taken: a new one is opened", async () => {
    const client = makeGithubClient({
      owner: "acme",
      repo: "widgets",
      token: TOKEN,
      apiUrl: fake.url,
    });
    const open = pullRequestOnce({
      client,
      number: 4,
      title: "t",
      summary: "s",
      base: "main",
      runId: "r",
    });
    await open("closer/issue-4");
    const pull = fake.state.pullRequests[0];
    if (pull !== undefined) pull.state = "closed";
    await open("closer/issue-4");
    expect(fake.state.pullRequests.map((entry) => entry.state)).toEqual(["closed", "open"]);
  });

  it("the fake answers a second pull request for an open head as GitHub does: 422", async () => {
    const client = makeGithubClient({
      owner: "acme",
      repo: "widgets",
      token: TOKEN,
      apiUrl: fake.url,
    });
    const request = { head: "closer/issue-4", base: "main", title: "t", body: "b" };
    await client.createPullRequest(request);
    await expect(client.createPullRequest(request)).rejects.toThrow(/422/);
  });
});
