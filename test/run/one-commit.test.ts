import { mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Plugin } from "../../src/ports/plugin.js";
import { readRunState } from "../../src/record/run-record.js";
import { runIssue } from "../../src/run/index.js";
import { makeScriptedBackend, type ScriptedBackend } from "../../src/testing/index.js";
import { DONE, doneTurn, eventLog, exists, git, useIssueRun } from "./support/issue-repo.js";

const ISSUES = [
  { number: 5, title: "Add epsilon", body: "Please add epsilon.", labels: ["ready"], comments: [] },
  { number: 6, title: "Add zeta", body: "Please add zeta.", labels: ["ready"], comments: [] },
];

/** A process that outlives the model's turn: it commits to the branch right after the verdict. */
function commitsAfterTheVerdict(backend: ScriptedBackend): Plugin {
  return {
    name: "left-running",
    hooks: {
      afterChecks: async (view) => {
        const worktree = backend.calls[0]?.cwd;
        if (!view.complete || worktree === undefined) return;
        await git(worktree, "commit", "--quiet", "--allow-empty", "-m", "after the verdict");
      },
    },
  };
}

/** A folder outside the work where a test's checks and processes leave marks. */
async function newMarks(): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), "marks-")));
}

describe("docs/integrity.md#one-commit: an issue run merges or pushes the commit its checks verified", () => {
  const start = useIssueRun(ISSUES);

  it("the checks start on autoCommit's commit; completion keeps it and the merge brings exactly it", async () => {
    const { setup, options } = await start({ worktree: { autoCommit: true } });
    const log = eventLog();
    const backend = makeScriptedBackend([
      { files: { "epsilon.txt": "epsilon\n" }, structuredOutput: DONE },
    ]);

    const outcome = await runIssue({ ...options, issue: 5, backend, onEvent: log.onEvent });

    expect(outcome).toMatchObject({ success: true, status: "completed" });
    const commit = outcome.completion?.commit ?? "";
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    expect(log.of("checks-start")).toEqual([expect.objectContaining({ iteration: 1, commit })]);
    expect(await git(setup.repo.dir, "log", "-1", "--format=%B", commit)).toContain(
      "Committed by closer (autoCommit).",
    );
    expect((await readRunState(outcome.runDir)).completion?.commit).toBe(commit);
    expect(await git(setup.repo.dir, "rev-parse", "main")).toBe(commit);
    const [merge] = log.of("side-effect").filter((event) => event.action === "worktree-merge");
    expect(merge).toMatchObject({ ok: true });
    expect(merge?.detail).toContain(commit);
  });

  it("a check that writes into the copy of the work it checks: the verdict is void and the write named; the work tree and the branch never see it", async () => {
    const marks = await newMarks();
    const { setup, options } = await start({
      validators: {
        "writes-late": {
          type: "command",
          // Writes once, on the model's work (not at the baseline), where it is checked.
          command: `[ -e epsilon.txt ] || exit 0; [ -e "${marks}/wrote" ] && exit 0; touch "${marks}/wrote"; echo late > late.txt`,
          successWhen: "exitCode:0",
          failurePattern: "check-failed",
          extractParams: { errorOutput: "stderr" },
        },
      },
      conditions: ["git-clean", "check-passes", "writes-late"],
      completionStep: { concurrency: 1 },
      runner: { sandbox: { allowWrite: [marks] } },
    });
    const log = eventLog();
    const backend = makeScriptedBackend([doneTurn("epsilon.txt"), { structuredOutput: DONE }]);

    const outcome = await runIssue({ ...options, issue: 5, backend, onEvent: log.onEvent });

    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 2 });
    expect(log.of("declaration-refuted").map((event) => event.pattern)).toEqual(["tree-changed"]);
    const [guard] = log.of("guard").filter((event) => event.guard === "tree-changed");
    expect(guard?.params?.moved).toEqual([
      "a check wrote into the copy of the work it checks: late.txt",
    ]);
    expect(backend.calls[1]?.prompt).toContain("a check wrote into the copy of the work it checks");
    expect(await exists(join(backend.calls[0]?.cwd ?? "", "late.txt"))).toBe(false);
    expect(outcome.completion?.commit).toBe(await git(setup.repo.dir, "rev-parse", "main"));
    expect(await git(setup.repo.dir, "ls-tree", "--name-only", "main")).not.toContain("late.txt");
  });

  it("a process the model left running commits while the checks run: the verdict is void", async () => {
    const marks = await newMarks();
    const { setup, options } = await start({
      validators: {
        // Holds the checks until the model's leftover process has committed (at most 10 s).
        "slow-check": {
          type: "command",
          command: `[ -e epsilon.txt ] || exit 0; touch "${marks}/checking"; i=0; while [ ! -e "${marks}/committed" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done`,
          successWhen: "exitCode:0",
          failurePattern: "check-failed",
          extractParams: { errorOutput: "stderr" },
        },
      },
      conditions: ["check-passes", "slow-check"],
      runner: { sandbox: { allowWrite: [marks] } },
    });
    const log = eventLog();
    // Started in a session of its own, as a daemon is; the turn ends once it is on its way.
    const leftRunning = `setsid sh -c 'touch "${marks}/detached"; i=0; while [ ! -e "${marks}/checking" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done; echo late > late.txt && git add late.txt && git commit --quiet -m late; touch "${marks}/committed"' </dev/null >/dev/null 2>&1 & j=0; while [ ! -e "${marks}/detached" ] && [ $j -lt 500 ]; do sleep 0.01; j=$((j + 1)); done`;
    const first = doneTurn("epsilon.txt");
    const backend = makeScriptedBackend([
      { ...first, commands: [...(first.commands ?? []), leftRunning] },
      { structuredOutput: DONE },
    ]);

    const outcome = await runIssue({ ...options, issue: 5, backend, onEvent: log.onEvent });

    expect(log.of("declaration-refuted").map((event) => event.pattern)).toEqual(["tree-changed"]);
    const [guard] = log.of("guard").filter((event) => event.guard === "tree-changed");
    expect(guard?.params?.moved).toEqual([expect.stringContaining("HEAD moved")]);
    expect(outcome).toMatchObject({ success: true, status: "completed", iterations: 2 });
    const checked = log.of("checks-start").map((event) => event.commit);
    expect(outcome.completion?.commit).toBe(checked[1]);
    expect(await git(setup.repo.dir, "rev-parse", "main")).toBe(checked[1]);
  });

  it("the branch moves after the verdict: the merge is refused, named in the record and the outcome, and the base is untouched", async () => {
    const { setup, options } = await start();
    const mainBefore = await git(setup.repo.dir, "rev-parse", "main");
    const log = eventLog();
    const backend = makeScriptedBackend([doneTurn("epsilon.txt")]);

    const outcome = await runIssue({
      ...options,
      issue: 5,
      backend,
      onEvent: log.onEvent,
      plugins: [commitsAfterTheVerdict(backend)],
    });

    const verified = outcome.completion?.commit ?? "";
    expect(outcome).toMatchObject({ status: "completed", success: false });
    expect(outcome.reason).toContain(`moved after the checks verified commit ${verified}`);
    expect(outcome.worktreeEnd?.action).toBe("kept");
    const [merge] = log.of("side-effect").filter((event) => event.action === "worktree-merge");
    expect(merge).toMatchObject({ ok: false });
    expect(merge?.detail).toMatch(/^refused: the branch closer\/issue-5 moved after the checks/);
    expect(await git(setup.repo.dir, "rev-parse", "main")).toBe(mainBefore);
    const worktree = outcome.worktree?.path ?? "/nowhere";
    expect(await exists(worktree)).toBe(true);
    expect(await git(worktree, "log", "-1", "--format=%s")).toBe("after the verdict");
    expect(await git(worktree, "rev-parse", "HEAD~1")).toBe(verified);
  });

  it("the branch moves after the verdict: the issue is neither closed nor commented as completed", async () => {
    const { setup, github, options } = await start();
    const backend = makeScriptedBackend([doneTurn("zeta.txt")]);

    const outcome = await runIssue({
      ...options,
      issue: 5,
      backend,
      plugins: [commitsAfterTheVerdict(backend)],
    });

    expect(outcome).toMatchObject({ status: "completed", success: false });
    expect(outcome.sideEffects).toBeUndefined();
    expect(github.state.issues.find((issue) => issue.number === 5)?.state).toBe("open");
    expect(await git(setup.repo.dir, "rev-parse", "main")).not.toBe(outcome.completion?.commit);
  });

  it("onSuccess push: the verified sha is what the remote branch holds; a branch moved after the verdict is not pushed", async () => {
    const { setup, github, options } = await start({ worktree: { onSuccess: "push" } });
    const pushed = await runIssue({
      ...options,
      issue: 5,
      backend: makeScriptedBackend([doneTurn("epsilon.txt")]),
    });
    expect(pushed).toMatchObject({ success: true, status: "completed" });
    expect(await git(setup.remoteDir, "rev-parse", "closer/issue-5")).toBe(
      pushed.completion?.commit,
    );

    const backend = makeScriptedBackend([doneTurn("zeta.txt")]);
    const refused = await runIssue({
      ...options,
      issue: 6,
      backend,
      plugins: [commitsAfterTheVerdict(backend)],
    });
    expect(refused).toMatchObject({ status: "completed", success: false });
    expect(refused.reason).toContain("closer did not push it");
    const remoteBranches = await git(setup.remoteDir, "branch", "--list", "closer/issue-6");
    expect(remoteBranches).toBe("");
    expect(github.state.pullRequests).toHaveLength(1);
  });
});
