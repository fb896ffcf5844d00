import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeGithub, startFakeGithub } from "../../test/doubles/fake-github/index.js";
import type { CostByReason } from "../ports/receipt-reason.js";
import type { GithubConfig } from "../ports/runner-config.js";
import { makeGithubClient } from "./client.js";
import { applyCompletionEffects, applyFailureEffects, commentMarker } from "./side-effects.js";

const TOKEN = "ghp_sideEffectsToken0987654321";

let fake: FakeGithub;

beforeEach(async () => {
  fake = await startFakeGithub({
    token: TOKEN,
    issues: [{ number: 7, title: "Do the thing", labels: ["in-progress", "bug"] }],
  });
});
afterEach(async () => {
  await fake.close();
});

const config = (overrides: Partial<GithubConfig> = {}): GithubConfig => ({
  labels: { add: ["done"], remove: ["in-progress"] },
  closeAction: "label-and-close",
  completionComment: true,
  failureComment: true,
  ...overrides,
});

const issue = () => fake.state.issues.find((candidate) => candidate.number === 7)!;

function completion(
  done: string[],
  overrides: Partial<GithubConfig> = {},
  costByReason?: CostByReason,
) {
  return applyCompletionEffects({
    client: makeGithubClient({ owner: "acme", repo: "widgets", token: TOKEN, apiUrl: fake.url }),
    issue: 7,
    runId: "run-7",
    config: config(overrides),
    summary: "Implemented the thing and its tests.",
    iterations: 3,
    checksPassed: ["git-clean", "tests-pass"],
    costUsd: 0.4231,
    ...(costByReason === undefined ? {} : { costByReason }),
    alreadyDone: [...done],
    record: async (key) => {
      done.push(key);
    },
  });
}

const writes = () => fake.requests.filter((request) => request.method !== "GET");

describe("applyCompletionEffects", () => {
  it("labels, comments and closes once, in order", async () => {
    const done: string[] = [];
    const result = await completion(done);
    expect(result.failed).toBeUndefined();
    expect(result.performed).toEqual([
      "label-remove:in-progress",
      "label-add:done",
      "comment:completion",
      "close",
    ]);
    expect(done).toEqual(result.performed);
    expect(issue()).toMatchObject({ state: "closed", labels: ["bug", "done"] });
    const comment = issue().comments.at(-1)?.body ?? "";
    expect(comment).toContain("Implemented the thing and its tests.");
    expect(comment).toContain("Iterations: 3");
    expect(comment).toContain("git-clean, tests-pass");
    expect(comment).toContain("$0.42");
  });

  it("gives the cost by why each query was sent (docs/observe.md#receipts)", async () => {
    const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
    const totals = (costUsd: number) => ({ queries: 1, costUsd, durationMs: 1, usage });
    await completion(
      [],
      {},
      {
        initial: totals(0.2031),
        "retry:test-failed": totals(0.15),
        "closure-review": totals(0.07),
      },
    );
    const comment = issue().comments.at(-1)?.body ?? "";
    expect(comment).toContain(
      "Cost: $0.42 (initial $0.20 · retry:test-failed $0.15 · closure-review $0.07)",
    );
  });

  it("never repeats an effect across a resumed run", async () => {
    const done: string[] = [];
    fake.rateLimit({ resetEpochSeconds: 2_000_000_000, match: "PATCH " });
    const first = await completion(done);
    expect(first.failed?.key).toBe("close");
    expect(first.failed?.error.code).toBe("github_error");
    expect(JSON.stringify(first.failed?.error.fields)).not.toContain(TOKEN);
    expect(first.failed?.error.message).not.toContain(TOKEN);
    expect(done).toEqual(["label-remove:in-progress", "label-add:done", "comment:completion"]);
    expect(issue().state).toBe("open");

    const resumed = await completion(done);
    expect(resumed.skipped).toEqual([
      "label-remove:in-progress",
      "label-add:done",
      "comment:completion",
    ]);
    expect(resumed.performed).toEqual(["close"]);
    const again = await completion(done);
    expect(again.performed).toEqual([]);

    expect(issue().comments).toHaveLength(1);
    expect(writes().filter((request) => request.path.endsWith("/comments"))).toHaveLength(1);
    expect(writes().filter((request) => request.path.endsWith("/labels"))).toHaveLength(1);
    expect(writes().filter((request) => request.method === "PATCH")).toHaveLength(2);
    expect(issue().state).toBe("closed");
  });

  it("finds its comment after a crash between posting it and recording it, and does not post it again", async () => {
    const done: string[] = [];
    const first = await completion(done, { closeAction: "label-only" });
    expect(first.performed).toContain("comment:completion");
    expect(issue().comments.at(-1)?.body).toContain(commentMarker("run-7", "comment:completion"));
    // The crash: GitHub has the comment, the record does not.
    const recorded = done.filter((key) => key !== "comment:completion");
    const resumed = await completion(recorded);
    expect(resumed.performed).toEqual(["comment:completion", "close"]);
    expect(issue().comments).toHaveLength(1);
    expect(issue().state).toBe("closed");
    // Another run's comment does not count as this run's.
    const other = await applyCompletionEffects({
      client: makeGithubClient({ owner: "acme", repo: "widgets", token: TOKEN, apiUrl: fake.url }),
      issue: 7,
      runId: "run-8",
      config: config({ closeAction: "label-only" }),
      summary: "Again.",
      iterations: 1,
      checksPassed: [],
      costUsd: 0,
      alreadyDone: [],
      record: async () => {},
    });
    expect(other.performed).toContain("comment:completion");
    expect(issue().comments).toHaveLength(2);
  });

  it("label-only never closes; close never labels; no comment when disabled", async () => {
    await completion([], { closeAction: "label-only", completionComment: false });
    expect(issue()).toMatchObject({ state: "open", labels: ["bug", "done"], comments: [] });
    fake.requests.length = 0;
    const result = await completion([], { closeAction: "close", completionComment: false });
    expect(result.performed).toEqual(["close"]);
    expect(writes().map((request) => request.method)).toEqual(["PATCH"]);
  });
});

describe("applyFailureEffects", () => {
  const failure = (failureComment: boolean, done: string[] = []) =>
    applyFailureEffects({
      client: makeGithubClient({ owner: "acme", repo: "widgets", token: TOKEN, apiUrl: fake.url }),
      issue: 7,
      runId: "run-7",
      config: config({ failureComment }),
      status: "max_iterations",
      reason: "tests still fail after 10 iterations",
      iterations: 10,
      worktreePath: "/repo/.closer/worktrees/closer-issue-7",
      alreadyDone: [...done],
      record: async (key) => {
        done.push(key);
      },
    });

  it("posts where it stopped and the worktree, once, and never closes", async () => {
    const done: string[] = [];
    expect((await failure(true, done)).performed).toEqual(["comment:failure"]);
    expect((await failure(true, done)).performed).toEqual([]);
    const comment = issue().comments.at(-1)?.body ?? "";
    expect(comment).toContain("max_iterations");
    expect(comment).toContain("tests still fail after 10 iterations");
    expect(comment).toContain("/repo/.closer/worktrees/closer-issue-7");
    expect(issue().comments).toHaveLength(1);
    expect(issue().state).toBe("open");
  });

  it("does nothing when the failure comment is off", async () => {
    expect((await failure(false)).performed).toEqual([]);
    expect(writes()).toEqual([]);
  });
});
