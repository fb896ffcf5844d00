import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { withInterrupt } from "../../src/cli/run/interrupt.js";
import type { FixtureRepo } from "../../src/testing/index.js";
import { makeCliRepo } from "./support/cli-repo.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
// The child runs in the fixture folder, so the TypeScript loader is named by its full path.
const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

describe("Ctrl-C during a run", () => {
  let repo: FixtureRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  it("aborts the run, keeps its record and exits 130", async () => {
    repo = await makeCliRepo();
    const child = spawn(
      process.execPath,
      [
        "--import",
        TSX_LOADER,
        MAIN,
        "run",
        "slow",
        "--task",
        "wait",
        "--cwd",
        repo.dir,
        "--no-worktree",
        "--json",
      ],
      { cwd: repo.dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    const working = new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        if (stderr.includes("backend command working")) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) =>
      child.on("exit", (code) => resolve(code)),
    );
    await Promise.race([working, exited]);
    child.kill("SIGINT");
    const code = await exited;
    expect(stderr).toContain("stopping; the run record and the worktree are kept");
    expect(code).toBe(130);
    const result = JSON.parse(stdout) as { status: string; runDir: string };
    expect(result.status).toBe("aborted");
    const state = JSON.parse(await readFile(join(result.runDir, "run.json"), "utf8")) as {
      status: string;
    };
    expect(state.status).toBe("aborted");
  }, 30_000);
});

describe("withInterrupt", () => {
  it("listens for SIGINT only while the work runs; a second signal exits at once with 130", async () => {
    const before = process.listenerCount("SIGINT");
    const exits: number[] = [];
    const notices: string[] = [];
    const outcome = await withInterrupt(
      async (signal) => {
        expect(process.listenerCount("SIGINT")).toBe(before + 1);
        process.emit("SIGINT");
        expect(signal.aborted).toBe(true);
        process.emit("SIGINT");
        return "stopped";
      },
      { write: (text) => notices.push(text), exit: (code) => exits.push(code) },
    );
    expect(outcome).toBe("stopped");
    expect(exits).toEqual([130]);
    expect(notices.join("")).toContain("press Ctrl-C again");
    expect(process.listenerCount("SIGINT")).toBe(before);
    expect(process.listenerCount("SIGTERM")).toBe(process.listenerCount("SIGTERM"));
  });
});
