import { expect } from "vitest";
import type { FakeGithub } from "../../doubles/fake-github/index.js";
import type { BareUpstream } from "./bare-upstream.js";

const API = "/api/v3/repos/acme/widgets";
const pathOf = (request: { path: string }) => request.path.split("?")[0];

/** The requests that closed issue `n` (a PATCH with state closed). */
export function closesOf(github: FakeGithub, issue: number): number {
  return github.requests.filter(
    (request) =>
      request.method === "PATCH" &&
      pathOf(request) === `${API}/issues/${issue}` &&
      (request.body as { state?: string } | undefined)?.state === "closed",
  ).length;
}

/** The bodies of the comments posted on issue `n`. */
export function commentsOf(github: FakeGithub, issue: number): string[] {
  return github.requests
    .filter(
      (request) =>
        request.method === "POST" && pathOf(request) === `${API}/issues/${issue}/comments`,
    )
    .map((request) => String((request.body as { body?: string } | undefined)?.body ?? ""));
}

/** The pull requests opened (POST …/pulls) from `branch`. */
export function pullRequestsOpened(github: FakeGithub, branch: string): number {
  return github.requests.filter(
    (request) =>
      request.method === "POST" &&
      pathOf(request) === `${API}/pulls` &&
      (request.body as { head?: string } | undefined)?.head === branch,
  ).length;
}

/**
 * Issue `n`'s fix reached `upstream` once (docs/queue.md#exactly-once): its branch pushed with
 * the work, one pull request opened from it, one comment linking it, one close.
 */
export async function expectDeliveredOnce(
  github: FakeGithub,
  upstream: BareUpstream,
  issue: number,
): Promise<void> {
  const branch = `closer/issue-${issue}`;
  const pulls = github.state.pullRequests.filter((pull) => pull.head === branch);
  expect(pulls, branch).toHaveLength(1);
  expect(pullRequestsOpened(github, branch), branch).toBe(1);
  expect(pulls[0]).toMatchObject({ base: "main", state: "open" });
  expect(pulls[0]?.body).toContain(`Closes #${issue}`);
  expect(await upstream.fileAt(branch, "work.txt")).toBe(`done on ${branch}`);
  expect(await upstream.holds(branch, await upstream.commitOf("main"))).toBe(true);
  const comments = commentsOf(github, issue);
  expect(comments, `issue ${issue}`).toHaveLength(1);
  expect(comments[0]).toContain(
    `Pull request: https://github.example/acme/widgets/pull/${pulls[0]?.number}`,
  );
  expect(closesOf(github, issue), `issue ${issue}`).toBe(1);
  expect(github.state.issues.find((entry) => entry.number === issue)?.state).toBe("closed");
}
