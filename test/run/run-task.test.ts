import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CloserError } from "../../src/errors.js";
import { readRunState } from "../../src/record/run-record.js";
import { runTask } from "../../src/run/index.js";
import { makeScriptedBackend, makeTestClock } from "../../src/testing/index.js";
import {
  BROKEN_TURN,
  DONE,
  doneTurn,
  exists,
  git,
  type IssueRepo,
  makeIssueRepo,
} from "./support/issue-repo.js";

const TASK = { kind: "text", title: "Add zeta", body: "Add zeta.txt." } as const;

describe("runTask", () => {
  let setup: IssueRepo | undefined;
  afterEach(async () => {
    await setup?.cleanup();
    setup = undefined;
  });

  function options(current: IssueRepo) {
    return { agent: current.agent, cwd: current.repo.dir, task: TASK, clock: makeTestClock() };
  }

  it("works in the project folder and completes without GitHub", async () => {
    setup = await makeIssueRepo();
    const backend = makeScriptedBackend([doneTurn("zeta.txt")]);
    const outcome = await runTask({ ...options(setup), backend });
    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 1 });
    expect(outcome.worktree).toBeUndefined();
    expect(outcome.sideEffects).toBeUndefined();
    expect(backend.calls[0]?.cwd).toBe(setup.repo.dir);
    expect(backend.calls[0]?.prompt).toContain("# Add zeta");
  });

  it("refuses an agent that closer validate rejects, before any model call or record", async () => {
    setup = await makeIssueRepo({
      steps: { initial: { next: "no.such.step" } },
    });
    const backend = makeScriptedBackend([doneTurn("zeta.txt")]);
    const refused = await runTask({ ...options(setup), backend }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CloserError);
    expect((refused as CloserError).code).toBe("config_error");
    expect((refused as CloserError).message).toContain("no.such.step");
    expect(backend.calls).toHaveLength(0);
    expect(await exists(join(setup.repo.dir, ".git", "closer", "runs"))).toBe(false);
  });

  it("works in a worktree on the given branch and merges it into the base", async () => {
    setup = await makeIssueRepo();
    const backend = makeScriptedBackend([doneTurn("zeta.txt")]);
    const outcome = await runTask({ ...options(setup), backend, branch: "feature/zeta" });
    expect(outcome).toMatchObject({ success: true, status: "completed" });
    expect(outcome.worktree?.branch).toBe("feature/zeta");
    expect(backend.calls[0]?.cwd).toBe(outcome.worktree?.path);
    expect(outcome.worktreeEnd?.action).toBe("merged");
    expect(await git(setup.repo.dir, "show", "main:zeta.txt")).toBe("zeta.txt");
    expect(await exists(outcome.worktree?.path ?? "/nowhere")).toBe(false);
  });

  it("names the branch after the run when agent.json enables worktrees", async () => {
    setup = await makeIssueRepo({ worktree: { enabled: true, onSuccess: "keep" } });
    const backend = makeScriptedBackend([doneTurn("zeta.txt")]);
    const outcome = await runTask({ ...options(setup), backend });
    expect(outcome.worktree?.branch).toBe(`closer/task-${outcome.runId}`);
    expect(outcome.worktreeEnd?.action).toBe("kept");
    expect(outcome.success).toBe(true);
    expect(outcome.warnings).toEqual([]);
  });

  it("ends aborted when its signal aborts, keeping the record and the worktree", async () => {
    setup = await makeIssueRepo();
    const controller = new AbortController();
    const backend = makeScriptedBackend([
      { files: { "zeta.txt": "half\n" }, act: () => controller.abort(), structuredOutput: DONE },
    ]);
    const outcome = await runTask({
      ...options(setup),
      backend,
      branch: "feature/zeta",
      signal: controller.signal,
    });
    expect(outcome.status).toBe("aborted");
    expect(outcome.worktreeEnd?.action).toBe("kept");
    expect(await exists(`${outcome.worktree?.path}/zeta.txt`)).toBe(true);
    expect((await readRunState(outcome.runDir)).status).toBe("aborted");
  });

  it("ends without completion when the checks keep failing", async () => {
    setup = await makeIssueRepo();
    const backend = makeScriptedBackend([BROKEN_TURN, BROKEN_TURN, BROKEN_TURN]);
    const outcome = await runTask({ ...options(setup), backend });
    expect(outcome).toMatchObject({ success: false, status: "retries_exhausted" });
  });
});
