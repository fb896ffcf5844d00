import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readRunState } from "../../src/record/run-record.js";
import { exitCodeOfOutcome, runBatch } from "../../src/run/index.js";
import { makeScriptedBackend, type ScriptedStep } from "../../src/testing/index.js";
import { type FakeGithub, startFakeGithub } from "../doubles/fake-github/index.js";
import {
  BROKEN_TURN,
  baseOptions,
  doneTurn,
  exists,
  git,
  type IssueRepo,
  makeIssueRepo,
  TOKEN,
} from "./support/issue-repo.js";

describe("runBatch: many issues, one worktree each", () => {
  let setup: IssueRepo | undefined;
  let github: FakeGithub | undefined;
  afterEach(async () => {
    await github?.close();
    await setup?.cleanup();
    setup = undefined;
    github = undefined;
  });

  it("completes, merges, labels and closes two issues at once, and keeps the worktree of the one that fails", async () => {
    setup = await makeIssueRepo();
    github = await startFakeGithub({
      token: TOKEN,
      issues: [
        { number: 1, title: "Add alpha", body: "alpha please", labels: ["ready"] },
        { number: 2, title: "Add beta", body: "beta please", labels: ["ready"] },
        { number: 3, title: "Impossible", body: "cannot be done", labels: ["ready"] },
        { number: 4, title: "Not ready", body: "later", labels: ["later"] },
      ],
    });
    const barrier = meetingPoint(2);
    let inFlight = 0;
    let mostInFlight = 0;
    const counted =
      (turn: Parameters<typeof doneTurn>[0] | "broken", first: boolean): ScriptedStep =>
      async () => {
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        if (first) await barrier();
        inFlight -= 1;
        return turn === "broken" ? BROKEN_TURN : doneTurn(turn);
      };
    const scripts: Record<number, ScriptedStep[]> = {
      1: [counted("alpha.txt", true)],
      2: [counted("beta.txt", true)],
      3: [counted("broken", true), counted("broken", false), counted("broken", false)],
    };
    const backends = new Map<number, ReturnType<typeof makeScriptedBackend>>();
    const result = await runBatch({
      ...baseOptions(setup, github.url),
      label: "ready",
      concurrency: 2,
      backendFor: (issue) => {
        const backend = makeScriptedBackend(scripts[issue] ?? []);
        backends.set(issue, backend);
        return backend;
      },
    });

    expect(result.success).toBe(false);
    expect(mostInFlight).toBe(2);
    const byIssue = new Map(result.outcomes.map((outcome) => [outcome.issue, outcome]));
    expect([...byIssue.keys()].sort()).toEqual([1, 2, 3]);
    for (const issue of [1, 2]) {
      const outcome = byIssue.get(issue);
      expect(outcome).toMatchObject({ success: true, status: "completed", issue });
      expect(outcome?.worktreeEnd?.action).toBe("merged");
      expect(exitCodeOfOutcome(outcome as never)).toBe(0);
      const state = github.state.issues.find((candidate) => candidate.number === issue);
      expect(state?.state).toBe("closed");
      expect(state?.labels).toEqual(["done"]);
      expect(countRequests(github, "PATCH", issue)).toBe(1);
      expect(countRequests(github, "POST", issue, "/comments")).toBe(1);
      expect(state?.comments.at(-1)?.body).toContain("made the widgets work");
      expect(await exists(outcome?.worktree?.path ?? "/nowhere")).toBe(false);
    }
    const main = await git(setup.repo.dir, "ls-tree", "--name-only", "main");
    expect(main.split("\n")).toEqual(expect.arrayContaining(["alpha.txt", "beta.txt"]));
    expect(main).not.toContain("BROKEN");

    const failed = byIssue.get(3);
    expect(failed?.success).toBe(false);
    expect(failed?.status).toBe("retries_exhausted");
    expect(exitCodeOfOutcome(failed as never)).toBe(1);
    expect(failed?.worktreeEnd?.action).toBe("kept");
    const keptPath = failed?.worktree?.path ?? "/nowhere";
    expect(await exists(join(keptPath, "BROKEN"))).toBe(true);
    expect(countRequests(github, "PATCH", 3)).toBe(0);
    const issue3 = github.state.issues.find((candidate) => candidate.number === 3);
    expect(issue3?.state).toBe("open");
    expect(issue3?.labels).toEqual(["ready"]);
    expect(issue3?.comments.map((comment) => comment.body).join("\n")).toContain(keptPath);
    const state3 = await readRunState(failed?.runDir ?? "");
    expect(state3.worktree?.path).toBe(keptPath);

    expect(backends.has(4)).toBe(false);
  });

  it("runs only the issues on a Projects v2 board with --project", async () => {
    setup = await makeIssueRepo();
    github = await startFakeGithub({
      token: TOKEN,
      issues: [
        { number: 11, title: "On the board", labels: ["ready"] },
        { number: 12, title: "Not on the board", labels: ["ready"] },
      ],
      projects: [{ owner: "acme", number: 4, items: [{ number: 11 }, { draft: "an idea" }] }],
    });
    const started: number[] = [];
    const result = await runBatch({
      ...baseOptions(setup, github.url),
      project: 4,
      label: "ready",
      onIssues: (issues) => started.push(...issues.map((issue) => issue.number)),
      backendFor: () => makeScriptedBackend([doneTurn("board.txt")]),
    });
    expect(started).toEqual([11]);
    expect(result).toMatchObject({ success: true });
    expect(result.outcomes.map((outcome) => outcome.issue)).toEqual([11]);
  });

  it("keeps going when one issue's run throws before it starts", async () => {
    setup = await makeIssueRepo();
    github = await startFakeGithub({
      token: TOKEN,
      issues: [
        { number: 7, title: "Add gamma", labels: ["ready"] },
        { number: 8, title: "Add delta", labels: ["ready"] },
      ],
    });
    github.failWith({ status: 404, match: "GET /api/v3/repos/acme/widgets/issues/8" });
    const result = await runBatch({
      ...baseOptions(setup, github.url),
      label: "ready",
      concurrency: 1,
      backendFor: () => makeScriptedBackend([doneTurn("gamma.txt")]),
    });
    const byIssue = new Map(result.outcomes.map((outcome) => [outcome.issue, outcome]));
    expect(byIssue.get(8)).toMatchObject({
      success: false,
      status: "error",
      errorCode: "github_error",
    });
    expect(byIssue.get(8)?.reason).toContain("404");
    expect(byIssue.get(7)).toMatchObject({ success: true, status: "completed" });
    expect(result.success).toBe(false);
  });
});

function countRequests(github: FakeGithub, method: string, issue: number, suffix = ""): number {
  const path = `/repos/acme/widgets/issues/${issue}${suffix}`;
  return github.requests.filter(
    (request) => request.method === method && request.path.split("?")[0]?.endsWith(path),
  ).length;
}

/** The first `count` callers wait for each other (at most 10 s), so they are in flight together. */
function meetingPoint(count: number): () => Promise<void> {
  let arrived = 0;
  let release: () => void = () => {};
  const allHere = new Promise<void>((resolve) => {
    release = resolve;
  });
  return async () => {
    arrived += 1;
    if (arrived > count) return;
    if (arrived === count) release();
    await Promise.race([allHere, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  };
}
