import { stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Backend, BackendRequest } from "../ports/backend.js";
import { runCommand } from "../process/shell-command.js";
import { BOUNDARY_MESSAGE } from "./boundary.js";
import { type GhShim, makeGhShim, withGhShim } from "./gh-shim.js";

function requestWith(env: Record<string, string>): BackendRequest {
  return {
    prompt: "Do the task.",
    cwd: process.cwd(),
    allowedTools: [],
    disallowedTools: [],
    permissionMode: "acceptEdits",
    env,
    timeoutMs: 10_000,
    signal: new AbortController().signal,
  };
}

describe("the gh shim", () => {
  let shim: GhShim | undefined;
  afterEach(async () => {
    await shim?.remove();
    shim = undefined;
  });

  it("refuses every gh command with the boundary message, exit 1, and notes each attempt", async () => {
    shim = await makeGhShim();
    const PATH = `${shim.folder}${path.delimiter}${process.env.PATH ?? ""}`;
    const close = await runCommand({
      command: "gh issue close 7 --comment 'done, it is fixed'",
      cwd: process.cwd(),
      env: { PATH },
      timeoutMs: 10_000,
    });
    expect(close.exitCode).toBe(1);
    expect(close.stderr).toContain(BOUNDARY_MESSAGE);
    const view = await runCommand({
      command: "gh issue view 7",
      cwd: process.cwd(),
      env: { PATH },
      timeoutMs: 10_000,
    });
    expect(view.exitCode).toBe(1);
    expect(await shim.readAttempts()).toEqual([
      "gh issue close 7 --comment done, it is fixed",
      "gh issue view 7",
    ]);
  });

  it("a folder without attempts reads as none, and is removed", async () => {
    shim = await makeGhShim();
    expect(await shim.readAttempts()).toEqual([]);
    await shim.remove();
    await expect(stat(shim.folder)).rejects.toThrow();
  });
});

describe("withGhShim", () => {
  it("puts a fresh shim folder first on each query's PATH and returns the attempts", async () => {
    const folders: string[] = [];
    const inner: Backend = {
      name: "inner",
      enforcesSchema: false,
      async query(request) {
        const first = request.env.PATH?.split(path.delimiter)[0] ?? "";
        folders.push(first);
        await runCommand({
          command: "gh pr merge 3",
          cwd: request.cwd,
          env: request.env,
          timeoutMs: 10_000,
        });
        return { text: "ok", costUsd: 0, durationMs: 1, toolsUsed: [], transcript: [] };
      },
    };
    const backend = withGhShim(inner, { PATH: "/usr/bin:/bin" });
    const response = await backend.query(requestWith({ CLOSER_RUN_ID: "r1" }));
    await backend.query(requestWith({}));

    expect(backend.name).toBe("inner");
    expect(response.boundaryAttempts).toEqual(["gh pr merge 3"]);
    expect(folders[0]).toMatch(/closer-gh-/);
    expect(folders[1]).not.toBe(folders[0]);
    // Each query's folder is gone once it has answered.
    await expect(stat(folders[0] ?? "")).rejects.toThrow();
  });
});
