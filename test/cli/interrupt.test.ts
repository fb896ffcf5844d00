import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { killChildProcessGroups, withInterrupt } from "../../src/cli/run/interrupt.js";
import type { FixtureRepo } from "../../src/testing/index.js";
import { liveMarkedProcesses, waitFor } from "../doubles/fake-claude/process-liveness.js";
import { makeCliRepo } from "./support/cli-repo.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
// The child runs in the fixture folder, so the TypeScript loader is named by its full path.
const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

/** `closer run <agent> --json [more]` in a child process, interrupted once the agent's processes run. */
async function interruptRun(
  dir: string,
  agent: "slow" | "stubborn",
  signals: number,
  more: readonly string[] = [],
) {
  const args = ["run", agent, "--task", "wait", "--cwd", dir, "--no-worktree", "--json", ...more];
  const child = spawn(process.execPath, ["--import", TSX_LOADER, MAIN, ...args], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const pidFile = join(dir, ".closer/agent-pids");
  const readPids = async () =>
    (await readFile(pidFile, "utf8").catch(() => "")).split(/\s+/).filter(Boolean).map(Number);
  expect(await waitFor(async () => (await readPids()).length === 2, 20_000)).toBe(true);
  const mark = await readFile(join(dir, ".closer/agent-mark"), "utf8");
  expect(mark).not.toBe("none");
  // The agent and its child, found by their mark: in the OS sandbox their pids are the sandbox's own.
  expect((await liveMarkedProcesses([mark])).length).toBeGreaterThanOrEqual(2);
  child.kill("SIGINT");
  if (signals === 2) {
    await waitFor(() => stderr.includes("closer: stopping"), 5000);
    child.kill("SIGINT");
  }
  const code = await exited;
  return { code, stdout, stderr, agentMark: mark };
}

describe("Ctrl-C during a run", () => {
  let repo: FixtureRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  it("aborts the run, keeps its record, ends the agent's processes and exits 130", async () => {
    repo = await makeCliRepo();
    const { code, stdout, stderr, agentMark } = await interruptRun(repo.dir, "slow", 1);
    expect(stderr).toContain("the run record and the work so far are kept");
    expect(code).toBe(130);
    const result = JSON.parse(stdout) as { status: string; runDir: string };
    expect(result.status).toBe("aborted");
    const state = JSON.parse(await readFile(join(result.runDir, "run.json"), "utf8")) as {
      status: string;
    };
    expect(state.status).toBe("aborted");
    expect(await liveMarkedProcesses([agentMark])).toEqual([]);
  }, 30_000);

  it("a second Ctrl-C quits at once and still leaves no agent process running", async () => {
    repo = await makeCliRepo();
    // Without the OS sandbox: in it, the end of the sandbox's first process (which ignores no
    // SIGTERM) ends every process inside at once, so nothing outlasts the first Ctrl-C.
    const { code, stdout, agentMark } = await interruptRun(repo.dir, "stubborn", 2, [
      "--sandbox",
      "off",
    ]);
    expect(code).toBe(130);
    expect(stdout).toBe("");
    const gone = async () => (await liveMarkedProcesses([agentMark])).length === 0;
    expect(await waitFor(gone, 2000)).toBe(true);
  }, 30_000);
});

describe("withInterrupt", () => {
  it("listens for SIGINT only while the work runs; a second signal ends the children and exits 130", async () => {
    const before = process.listenerCount("SIGINT");
    const exits: number[] = [];
    const notices: string[] = [];
    let killed = 0;
    const outcome = await withInterrupt(
      async (signal) => {
        expect(process.listenerCount("SIGINT")).toBe(before + 1);
        process.emit("SIGINT");
        expect(signal.aborted).toBe(true);
        expect(killed).toBe(0);
        process.emit("SIGINT");
        return "stopped";
      },
      {
        write: (text) => notices.push(text),
        exit: (code) => exits.push(code),
        killChildren: () => {
          killed += 1;
        },
      },
    );
    expect(outcome).toBe("stopped");
    expect(exits).toEqual([130]);
    expect(killed).toBe(1);
    expect(notices.join("")).toContain("press Ctrl-C again");
    expect(process.listenerCount("SIGINT")).toBe(before);
  });
});

describe("killChildProcessGroups", () => {
  it.runIf(process.platform === "linux")(
    "kills the groups this process's detached children lead, grandchildren included",
    async () => {
      const child = spawn("sh", ["-c", "trap '' TERM; sleep 60 & wait"], {
        detached: true,
        stdio: "ignore",
      });
      const pid = child.pid ?? 0;
      const exited = new Promise((resolve) => child.on("exit", resolve));
      killChildProcessGroups();
      await exited;
      expect(await waitFor(() => !isGroupAlive(pid), 2000)).toBe(true);
    },
  );
});

function isGroupAlive(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
    return true;
  } catch {
    return false;
  }
}
