import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { killProcessGroup } from "../../src/process/shell-command.js";
import { cli } from "../cli/support/cli-repo.js";
import { startCloser } from "./support/closer-process.js";
import { fault } from "./support/fault.js";
import { DONE_ANSWER, type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { onlyRunFolder, readRecordedEvents, readRunJson } from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

/** A model that, on its first call, writes its pid and works until it is stopped; later calls declare done. */
const SLOW_FIRST = [
  'import { existsSync, writeFileSync } from "node:fs";',
  READ_PROMPT,
  'const pidFile = new URL("./scratch/pid.txt", import.meta.url);',
  "if (!existsSync(pidFile)) {",
  "  writeFileSync(pidFile, String(process.pid));",
  "  await new Promise(() => setInterval(() => {}, 1000));",
  "}",
  DONE_ANSWER,
].join("\n");

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe("Interruptions", () => {
  let repo: FaultRepo | undefined;
  let modelPid: number | undefined;
  afterEach(async () => {
    if (modelPid !== undefined) await killProcessGroup(modelPid, 0);
    await repo?.cleanup();
    repo = undefined;
    modelPid = undefined;
  });

  async function waitForModel(dir: string): Promise<number> {
    const pidFile = join(dir, "scratch/pid.txt");
    await until(() => existsSync(pidFile));
    await new Promise((resolve) => setTimeout(resolve, 100));
    modelPid = Number(await readFile(pidFile, "utf8"));
    return modelPid;
  }

  fault(
    {
      what: "closer is killed (SIGKILL, power loss) during a query",
      does: "run.json holds the last state written; `--resume` repeats the interrupted iteration and completes, with the record of both processes in one run folder",
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
      expect(await readRunJson(runDir)).toMatchObject({ status: "running" });

      const resumed = await cli("run", repo.agent, "--resume", basename(runDir), "--cwd", repo.dir);
      expect(resumed.code, resumed.stderr).toBe(0);
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
      what: "a second closer starts on a tree a run is working in",
      does: "exit 2 at once, naming the run that holds the tree; the first run is not disturbed",
    },
    async () => {
      repo = await makeFaultRepo({ program: SLOW_FIRST });
      const args = ["run", repo.agent, "--task", "Do it", "--no-worktree", "--cwd", repo.dir];
      const first = startCloser([...args, "--json"], { cwd: repo.dir });
      const pid = await waitForModel(repo.dir);
      const second = await cli(...args);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/lock|in use|another run/i);
      const runDir = await onlyRunFolder(repo.dir);
      expect(await readRunJson(runDir)).toMatchObject({ status: "running" });
      await killProcessGroup(pid, 0);
      first.child.kill("SIGINT");
      await first.exited;
    },
    60_000,
  );
});
