import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { liveMarkedProcesses } from "../doubles/fake-claude/process-liveness.js";
import { startCloser } from "./support/closer-process.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { holdChecks, makeHoldingCheckRepo } from "./support/holding-check.js";
import { onlyRunFolder, readRecordedEvents, readRunJson } from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

/**
 * A model that, on its first call, writes the mark closer gave its processes (how they are found
 * from outside the OS sandbox, whose pids are its own) and works until it is stopped; later calls
 * declare done.
 */
const SLOW_FIRST = [
  'import { existsSync, writeFileSync } from "node:fs";',
  READ_PROMPT,
  'const markFile = new URL("./scratch/mark.txt", import.meta.url);',
  "if (!existsSync(markFile)) {",
  '  writeFileSync(markFile, process.env.PROCESS_TREE_MARK ?? "none");',
  "  await new Promise(() => setInterval(() => {}, 1000));",
  "}",
  DONE_ANSWER,
].join("\n");

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe("Interruptions", () => {
  let repo: FaultRepo | undefined;
  let modelMark: string | undefined;
  afterEach(async () => {
    if (modelMark !== undefined) await killMarked(modelMark);
    await repo?.cleanup();
    repo = undefined;
    modelMark = undefined;
  });

  async function waitForModel(dir: string): Promise<string> {
    const markFile = join(dir, "scratch/mark.txt");
    await until(() => existsSync(markFile));
    await new Promise((resolve) => setTimeout(resolve, 100));
    modelMark = await readFile(markFile, "utf8");
    expect(modelMark).not.toBe("none");
    return modelMark;
  }

  /** Ends what is left of the model's processes, found by their mark. */
  async function killMarked(mark: string): Promise<void> {
    for (const pid of await liveMarkedProcesses([mark])) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  fault(
    {
      what: "closer is killed (SIGKILL, power loss) during a query",
      does: "run.json holds the last state written; `--resume` repeats the interrupted iteration and completes, with the record of both processes in one run folder; the OS sandbox left no stand-in (.bashrc, .gitconfig, …) in the tree: its library works from a folder of its own (docs/sandbox.md#library-host)",
    },
    async () => {
      repo = await makeFaultRepo({ program: SLOW_FIRST });
      const before = await takeUserState(repo.dir);
      const args = ["run", repo.agent, "--task", "Do it", "--no-worktree", "--cwd", repo.dir];
      const closer = startCloser(args, { cwd: repo.dir });
      await waitForModel(repo.dir);
      closer.child.kill("SIGKILL");
      await closer.exited;
      const runDir = await onlyRunFolder(repo.dir);
      const killed = await readRunJson(runDir);
      expect(killed).toMatchObject({ status: "running" });
      const sandboxOn = (killed.sandbox as { on?: boolean } | undefined)?.on === true;

      const resumed = await cli("run", repo.agent, "--resume", basename(runDir), "--cwd", repo.dir);
      expect(resumed.code, resumed.stderr).toBe(0);
      if (sandboxOn) expect(resumed.stderr).not.toMatch(/stand-ins/);
      expect(await readRunJson(runDir)).toMatchObject({ status: "completed", iteration: 1 });
      const events = await readRecordedEvents(runDir);
      expect(events.filter((event) => event.type === "run-start")).toHaveLength(2);
      expect(events.at(-1)).toMatchObject({ type: "run-end", status: "completed" });
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "closer is killed (SIGKILL, power loss) during the checks of a declaration",
      does: "`--resume` runs that declaration's checks again before anything is sent to the model, says so in a warning, and completes in the iteration the declaration was made",
    },
    async () => {
      repo = await makeHoldingCheckRepo();
      const before = await takeUserState(repo.dir);
      await holdChecks(repo.dir);
      const args = ["run", repo.agent, "--task", "Do it", "--no-worktree", "--cwd", repo.dir];
      const closer = startCloser(args, { cwd: repo.dir });
      const checkMark = join(repo.dir, ".closer/check-mark");
      await until(() => existsSync(checkMark));
      await new Promise((resolve) => setTimeout(resolve, 100));
      modelMark = await readFile(checkMark, "utf8");
      closer.child.kill("SIGKILL");
      await closer.exited;
      await killMarked(modelMark);
      await rm(join(repo.dir, ".closer/hold"));
      const runDir = await onlyRunFolder(repo.dir);

      const resumed = await cli("run", repo.agent, "--resume", basename(runDir), "--cwd", repo.dir);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await readRunJson(runDir)).toMatchObject({ status: "completed", iteration: 1 });
      const events = await readRecordedEvents(runDir);
      expect(events.filter((event) => event.type === "backend-start")).toHaveLength(1);
      expect(events).toContainEqual(
        expect.objectContaining({
          type: "warning",
          message: expect.stringContaining("stopped during the checks of iteration 1"),
        }),
      );
      expect(events.filter((event) => event.type === "validator-end").at(-1)).toMatchObject({
        validator: "holding-check",
        valid: true,
      });
      await expectUserStateKept(repo.dir, before);
    },
    60_000,
  );

  fault(
    {
      what: "closer is interrupted (Ctrl-C) during the checks of a declaration",
      does: "the run ends `aborted` (exit 130) with no verdict on that declaration — no failed check, no `tree-changed` guard — and `--resume` runs its checks again and completes in the iteration it was made, with no further query",
    },
    async () => {
      repo = await makeHoldingCheckRepo();
      await holdChecks(repo.dir);
      const args = ["run", repo.agent, "--task", "Do it", "--no-worktree", "--cwd", repo.dir];
      const closer = startCloser(args, { cwd: repo.dir });
      const checkMark = join(repo.dir, ".closer/check-mark");
      await until(() => existsSync(checkMark));
      closer.child.kill("SIGINT");
      const stopped = await closer.exited;
      expect(stopped.code).toBe(130);
      await rm(join(repo.dir, ".closer/hold"));
      const runDir = await onlyRunFolder(repo.dir);
      expect(await readRunJson(runDir)).toMatchObject({ status: "aborted", iteration: 1 });
      const stoppedEvents = await readRecordedEvents(runDir);
      expect(stoppedEvents.filter((event) => event.type === "guard")).toEqual([]);
      expect(stoppedEvents.filter((event) => event.type === "declaration-refuted")).toEqual([]);

      const resumed = await cli("run", repo.agent, "--resume", basename(runDir), "--cwd", repo.dir);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await readRunJson(runDir)).toMatchObject({ status: "completed", iteration: 1 });
      const events = await readRecordedEvents(runDir);
      expect(events.filter((event) => event.type === "backend-start")).toHaveLength(1);
    },
    60_000,
  );

  fault(
    {
      what: "a second closer starts on a tree a run is working in",
      does: "exit 2 at once, naming the run that holds the tree; the first run is not disturbed",
    },
    async () => {
      repo = await makeFaultRepo({ program: SLOW_FIRST });
      const args = ["run", repo.agent, "--task", "Do it", "--no-worktree", "--cwd", repo.dir];
      const first = startCloser([...args, "--json"], { cwd: repo.dir });
      const mark = await waitForModel(repo.dir);
      const second = await cli(...args);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/lock|in use|another run/i);
      const runDir = await onlyRunFolder(repo.dir);
      expect(await readRunJson(runDir)).toMatchObject({ status: "running" });
      await killMarked(mark);
      first.child.kill("SIGINT");
      await first.exited;
    },
    60_000,
  );
});
