import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isCloserError } from "../../src/errors.js";
import { readRunState } from "../../src/record/run-record.js";
import { exitCodeOfError, resumeRun, runIssue } from "../../src/run/index.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { type FakeGithub, startFakeGithub } from "../doubles/fake-github/index.js";
import {
  baseOptions,
  doneTurn,
  git,
  type IssueRepo,
  makeIssueRepo,
  TOKEN,
} from "./support/issue-repo.js";
import { readRecordedEvents } from "./support/recorded-events.js";

const ISSUE = { number: 5, title: "Add epsilon", body: "Please add epsilon.", labels: ["ready"] };
const CLOSE = "PATCH /api/v3/repos/acme/widgets/issues/5";

/** docs/integrity.md#resume: a completed run whose side effects did not all finish. */
describe("resuming a completed run to finish its side effects", () => {
  let setup: IssueRepo | undefined;
  let github: FakeGithub | undefined;
  afterEach(async () => {
    await github?.close();
    await setup?.cleanup();
    setup = undefined;
    github = undefined;
  });

  /** An issue run that completes, but whose closing of the issue fails (the fake answers 500). */
  async function completeWithoutClosing(options: Parameters<typeof makeIssueRepo>[0] = {}) {
    setup = await makeIssueRepo(options);
    github = await startFakeGithub({ token: TOKEN, issues: [{ ...ISSUE, comments: [] }] });
    const runOptions = baseOptions(setup, github.url);
    github.failWith({ status: 500, match: CLOSE });
    const first = await runIssue({
      ...runOptions,
      issue: 5,
      backend: makeScriptedBackend([doneTurn("epsilon.txt")]),
    });
    expect(first).toMatchObject({ status: "completed", success: false });
    expect(first.sideEffects?.failed?.key).toBe("close");
    const recorded = await readRunState(first.runDir);
    expect(recorded.sideEffects).toEqual(expect.arrayContaining(["comment:completion"]));
    expect(recorded.sideEffects).not.toContain("close");
    return { setup, github, options: runOptions, first };
  }

  it("runs the checks again on the verified commit, with no query, and closes the issue once", async () => {
    const { setup, github, options, first } = await completeWithoutClosing();
    const backend = makeScriptedBackend([]); // a query would find no turn left and throw
    const finished = await resumeRun({ ...options, resume: first.runId, backend });
    expect(finished).toMatchObject({ success: true, status: "completed", runId: first.runId });
    expect(backend.calls).toEqual([]);
    expect(github.state.issues[0]?.state).toBe("closed");
    expect(count(github, "POST", "/issues/5/comments")).toBe(1);
    expect(count(github, "PATCH", "/issues/5")).toBe(2); // the failed one, then the one that closed it
    const state = await readRunState(first.runDir);
    expect(state.sideEffects).toContain("close");
    expect(state.completion?.commit).toBe(first.completion?.commit);
    const events = await readRecordedEvents(first.runDir);
    const starts = events.flatMap((event, index) => (event.type === "run-start" ? [index] : []));
    expect(starts).toHaveLength(2);
    const again = events.slice(starts[1]);
    expect(again.some((event) => event.type === "validator-end" && event.valid === true)).toBe(
      true,
    );
    expect(again.some((event) => event.type === "prompt")).toBe(false);
    expect(await git(setup.repo.dir, "show", "main:epsilon.txt")).toBe("epsilon.txt");
    // The worktree made again for the checks is gone, as the merge left it.
    expect(await git(setup.repo.dir, "branch", "--list", first.worktree?.branch ?? "")).toBe("");

    // Nothing is left to do: a further resume is refused as any completed run's.
    const refused = await resumeRun({ ...options, resume: first.runId, backend }).catch(
      (error: unknown) => error,
    );
    expect(isCloserError(refused) && exitCodeOfError(refused)).toBe(2);
    expect((refused as Error).message).toContain(`run ${first.runId} already ended: completed`);
    expect(count(github, "PATCH", "/issues/5")).toBe(2);
  });

  it("finishes nothing when the checks fail now on the verified commit's tree", async () => {
    const { github, options, first } = await completeWithoutClosing({
      worktree: { onSuccess: "keep" },
    });
    const kept = first.worktree?.path ?? "/nowhere";
    await writeFile(join(kept, "BROKEN"), "yes\n"); // HEAD is still the verified commit
    const backend = makeScriptedBackend([]);
    const resumed = await resumeRun({ ...options, resume: first.runId, backend });
    expect(resumed.success).toBe(false);
    expect(resumed.status).not.toBe("completed");
    expect(resumed.reason).toContain("was not finished");
    expect(backend.calls).toEqual([]);
    expect(github.state.issues[0]?.state).toBe("open");
    expect(count(github, "PATCH", "/issues/5")).toBe(1);
    expect((await readRunState(first.runDir)).sideEffects).not.toContain("close");
  });

  it("refuses, before anything runs, a tree that is no longer at the verified commit", async () => {
    const { github, options, first } = await completeWithoutClosing({
      worktree: { onSuccess: "keep" },
    });
    const kept = first.worktree?.path ?? "/nowhere";
    await git(kept, "commit", "--quiet", "--allow-empty", "-m", "moved");
    const backend = makeScriptedBackend([]);
    const refused = await resumeRun({ ...options, resume: first.runId, backend }).catch(
      (error: unknown) => error,
    );
    expect(isCloserError(refused) && exitCodeOfError(refused)).toBe(2);
    expect((refused as Error).message).toContain("not at the commit its checks verified");
    expect(github.state.issues[0]?.state).toBe("open");
    expect((await readRunState(first.runDir)).status).toBe("completed");
  });
});

function count(github: FakeGithub, method: string, suffix: string): number {
  return github.requests.filter(
    (request) =>
      request.method === method &&
      request.path.split("?")[0]?.endsWith(`/repos/acme/widgets${suffix}`),
  ).length;
}
