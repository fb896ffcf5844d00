import { describe, expect, it } from "vitest";
import { isCloserError } from "../../src/errors.js";
import { readRunState } from "../../src/record/run-record.js";
import { exitCodeOfError, resumeRun, runIssue } from "../../src/run/index.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { acquireLock, issueLockKey } from "../../src/workspace/index.js";
import type { FakeGithub } from "../doubles/fake-github/index.js";
import {
  BROKEN_TURN,
  DONE,
  doneTurn,
  exists,
  git,
  readTree,
  TOKEN,
  useIssueRun,
} from "./support/issue-repo.js";

const ISSUE = {
  number: 5,
  title: "Add epsilon",
  body: "Please add epsilon.",
  labels: ["ready", "small"],
  comments: [{ author: "alice", body: "epsilon goes at the top" }],
};

describe("runIssue", () => {
  const start = useIssueRun([ISSUE]);

  it("gives the issue's title, body, labels and comments to the templates", async () => {
    const { options } = await start({
      initialPrompt: [
        "# {{task.title}} ({{task.url}})",
        "{{task.body}}",
        "Issue {{issue}}; labels: {{#each task.labels}}[{{this}}]{{/each}}",
        "{{#each task.comments}}{{this.author}} said: {{this.body}}{{/each}}",
        "",
      ].join("\n"),
    });
    const backend = makeScriptedBackend([doneTurn("epsilon.txt")]);
    const outcome = await runIssue({ ...options, issue: 5, backend });
    expect(outcome).toMatchObject({ success: true, status: "completed", issue: 5 });
    const prompt = backend.calls[0]?.prompt ?? "";
    expect(prompt).toContain("# Add epsilon (https://github.example/acme/widgets/issues/5)");
    expect(prompt).toContain("Please add epsilon.");
    expect(prompt).toContain("Issue 5; labels: [ready][small]");
    expect(prompt).toContain("alice said: epsilon goes at the top");
  });

  it("resumes an interrupted run in its kept worktree and closes the issue once", async () => {
    const { setup, github, options } = await start();
    const controller = new AbortController();
    const interrupted = await runIssue({
      ...options,
      issue: 5,
      signal: controller.signal,
      backend: makeScriptedBackend([
        {
          files: { "epsilon.txt": "half\n" },
          act: () => controller.abort(),
          structuredOutput: { status: "in_progress" },
        },
      ]),
    });
    expect(interrupted).toMatchObject({ success: false, status: "aborted" });
    expect(interrupted.sideEffects).toBeUndefined();
    const kept = interrupted.worktree?.path ?? "/nowhere";
    expect(await exists(`${kept}/epsilon.txt`)).toBe(true);
    expect((await readRunState(interrupted.runDir)).status).toBe("aborted");
    expect(github.requests.filter((request) => request.method !== "GET")).toHaveLength(0);

    const backend = makeScriptedBackend([doneTurn("epsilon.txt")]);
    const resumed = await resumeRun({ ...options, resume: interrupted.runId, backend });
    expect(resumed).toMatchObject({ success: true, status: "completed", runId: interrupted.runId });
    expect(backend.calls[0]?.cwd).toBe(kept);
    expect(github.state.issues[0]?.state).toBe("closed");
    expect(countRequests(github, "PATCH", "/issues/5")).toBe(1);
    expect(countRequests(github, "POST", "/issues/5/comments")).toBe(1);
    expect(await git(setup.repo.dir, "show", "main:epsilon.txt")).toBe("epsilon.txt");
  });

  it("never writes the token into the run folder", async () => {
    const { github, options } = await start({
      initialPrompt: "# {{task.title}}\n{{task.body}}\n",
    });
    const issue = github.state.issues[0];
    if (issue) issue.body = `Someone pasted the token here: ${TOKEN}`;
    const backend = makeScriptedBackend([doneTurn("epsilon.txt")]);
    const outcome = await runIssue({ ...options, issue: 5, backend });
    expect(outcome.success).toBe(true);
    expect(backend.calls[0]?.prompt).toContain("Someone pasted the token here");
    const files = await readTree(outcome.runDir);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) expect(file.text, file.path).not.toContain(TOKEN);
    expect(JSON.stringify(outcome)).not.toContain(TOKEN);
    expect(github.requests.every((request) => request.authorization === `token ${TOKEN}`)).toBe(
      true,
    );
  });

  it("commits what the model left uncommitted when autoCommit is on, and completes", async () => {
    const { setup, options } = await start({ worktree: { autoCommit: true } });
    const backend = makeScriptedBackend([
      {
        files: { "epsilon.txt": "epsilon\n" },
        structuredOutput: { ...DONE, summary: "Added epsilon.txt at the top" },
      },
    ]);
    const outcome = await runIssue({ ...options, issue: 5, backend });
    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
    const log = await git(setup.repo.dir, "log", "-1", "--format=%B", "main");
    expect(log).toContain("Added epsilon.txt at the top (#5)");
    expect(log).toContain("autoCommit");
    expect(await git(setup.repo.dir, "show", "main:epsilon.txt")).toBe("epsilon");
  });

  it("without autoCommit, uncommitted work is not complete: the model is told and commits", async () => {
    const { options } = await start({ worktree: { autoCommit: false } });
    const backend = makeScriptedBackend([
      { files: { "epsilon.txt": "epsilon\n" }, structuredOutput: DONE },
      { commands: ["git add --all && git commit --quiet -m epsilon"], structuredOutput: DONE },
    ]);
    const outcome = await runIssue({ ...options, issue: 5, backend });
    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 2 });
    expect(backend.calls[1]?.prompt).toContain("epsilon.txt");
  });

  it("needs a commit on the branch: declaring done without any work is not complete", async () => {
    const { github, options } = await start({ runner: { maxIterations: 2 } });
    const backend = makeScriptedBackend([{ structuredOutput: DONE }, { structuredOutput: DONE }]);
    const outcome = await runIssue({ ...options, issue: 5, backend });
    expect(outcome.success).toBe(false);
    expect(backend.calls[1]?.prompt).toContain("work committed on the task branch");
    expect(github.state.issues[0]?.state).toBe("open");
  });

  it("keeps the worktree, reports it, comments once and never closes when the run fails", async () => {
    const { github, options } = await start();
    const backend = makeScriptedBackend([BROKEN_TURN, BROKEN_TURN, BROKEN_TURN]);
    const outcome = await runIssue({ ...options, issue: 5, backend });
    expect(outcome).toMatchObject({ success: false, status: "retries_exhausted" });
    const path = outcome.worktree?.path ?? "/nowhere";
    expect(path).toContain("closer-issue-5");
    expect(await exists(path)).toBe(true);
    expect(outcome.worktreeEnd?.detail).toContain(path);
    expect(outcome.sideEffects?.performed).toEqual(["comment:failure"]);
    expect(github.state.issues[0]?.state).toBe("open");
    expect(github.state.issues[0]?.comments.at(-1)?.body).toContain(path);
    expect(countRequests(github, "PATCH", "/issues/5")).toBe(0);
    const state = await readRunState(outcome.runDir);
    expect(state.worktree?.path).toBe(path);
    expect(state.sideEffects).toEqual(["comment:failure"]);
  });

  it("works in the project folder itself with worktree: false", async () => {
    const { setup, github, options } = await start();
    const backend = makeScriptedBackend([doneTurn("epsilon.txt")]);
    const outcome = await runIssue({ ...options, issue: 5, backend, worktree: false });
    expect(outcome).toMatchObject({ success: true, status: "completed" });
    expect(outcome.worktree).toBeUndefined();
    expect(backend.calls[0]?.cwd).toBe(setup.repo.dir);
    expect(github.state.issues[0]?.state).toBe("closed");
  });

  it("pushes the branch and opens a pull request with onSuccess: push", async () => {
    const { setup, github, options } = await start({ worktree: { onSuccess: "push" } });
    const backend = makeScriptedBackend([doneTurn("epsilon.txt")]);
    const outcome = await runIssue({ ...options, issue: 5, backend });
    expect(outcome.worktreeEnd).toMatchObject({ action: "pushed" });
    expect(outcome.worktreeEnd?.pullRequestUrl).toContain("/pull/");
    expect(github.state.pullRequests[0]).toMatchObject({ head: "closer/issue-5", base: "main" });
    const remoteFiles = await git(setup.remoteDir, "ls-tree", "--name-only", "closer/issue-5");
    expect(remoteFiles.split("\n")).toContain("epsilon.txt");
  });

  it("refuses a second run on an issue whose lock is held", async () => {
    const { setup, options } = await start();
    const held = await acquireLock({
      cwd: setup.repo.dir,
      key: issueLockKey(5),
      runId: "other-run",
    });
    try {
      const error = await runIssue({
        ...options,
        issue: 5,
        backend: makeScriptedBackend([doneTurn("epsilon.txt")]),
      }).catch((caught: unknown) => caught);
      expect(isCloserError(error) && error.code).toBe("lock_error");
      expect(String((error as Error).message)).toContain("other-run");
    } finally {
      await held.lock.release();
    }
  });

  it.each([
    {
      name: "an unknown issue (404)",
      code: 2,
      text: "not found",
      fail: (fake: FakeGithub) => fake.failWith({ status: 404 }),
    },
    {
      name: "a rejected token (401)",
      code: 2,
      text: "token",
      fail: (fake: FakeGithub) => fake.failWith({ status: 401 }),
    },
    {
      name: "a rate limit",
      code: 1,
      text: "rate limit",
      fail: (fake: FakeGithub) => fake.rateLimit({ retryAfterSeconds: 60 }),
    },
  ])(
    "fails before the run on $name with a clear message and exit code $code",
    async ({ fail, code, text }) => {
      const { github, options } = await start();
      fail(github);
      const backend = makeScriptedBackend([doneTurn("epsilon.txt")]);
      const error = await runIssue({ ...options, issue: 5, backend }).catch(
        (caught: unknown) => caught,
      );
      expect(isCloserError(error) && error.code).toBe("github_error");
      expect(isCloserError(error) && error.describe()).toContain(text);
      expect(exitCodeOfError(error)).toBe(code);
      expect(backend.calls).toHaveLength(0);
    },
  );
});

function countRequests(github: FakeGithub, method: string, suffix: string): number {
  return github.requests.filter(
    (request) =>
      request.method === method &&
      request.path.split("?")[0]?.endsWith(`/repos/acme/widgets${suffix}`),
  ).length;
}
