import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BackendRequest } from "../ports/backend.js";
import { type FixtureRepo, makeFixtureRepo, writeAgent } from "./fixture-repo.js";
import { makeScriptedBackend, scriptedError } from "./scripted-backend.js";
import { makeTestClock } from "./test-clock.js";

function request(cwd: string, overrides: Partial<BackendRequest> = {}): BackendRequest {
  return {
    prompt: "do it",
    cwd,
    allowedTools: [],
    disallowedTools: [],
    permissionMode: "acceptEdits",
    env: { CLOSER_CHECK_ID: "check-1" },
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe("makeScriptedBackend", () => {
  let repo: FixtureRepo;
  beforeEach(async () => {
    repo = await makeFixtureRepo({ files: { "a.txt": "a\n" } });
  });
  afterEach(() => repo.cleanup());

  it("acts on the working tree like an agent, then answers, and remembers each request", async () => {
    const backend = makeScriptedBackend([
      {
        files: { "b.txt": "b\n", "a.txt": null },
        commands: ["git add --all && git commit --quiet -m change", ["git", "log", "--format=%s"]],
        structuredOutput: { status: "completed" },
        costUsd: 0.25,
      },
    ]);
    const response = await backend.query(request(repo.dir));

    expect(response.structuredOutput).toEqual({ status: "completed" });
    expect(response.costUsd).toBe(0.25);
    expect(await readFile(join(repo.dir, "b.txt"), "utf8")).toBe("b\n");
    expect(backend.commandResults[1]?.stdout).toContain("change");
    expect((await repo.git("status", "--porcelain")).stdout).toBe("");
    expect(backend.calls.map((call) => call.prompt)).toEqual(["do it"]);
  });

  it("lets a turn depend on the request, e.g. to answer with the current check id", async () => {
    const backend = makeScriptedBackend([
      (received) => ({ text: `id ${received.env.CLOSER_CHECK_ID}` }),
    ]);
    expect((await backend.query(request(repo.dir))).text).toBe("id check-1");
  });

  it("answers with the usual failures, retryable where a real backend's would be", async () => {
    const backend = makeScriptedBackend([
      { error: scriptedError("rate_limit", { retryAfterMs: 1000 }) },
      { error: scriptedError("auth") },
    ]);
    const limited = await backend.query(request(repo.dir));
    const denied = await backend.query(request(repo.dir));
    expect(limited.error).toMatchObject({
      kind: "rate_limit",
      retryable: true,
      retryAfterMs: 1000,
    });
    expect(denied.error).toMatchObject({ kind: "auth", retryable: false });
  });

  it("says so when the script has no turn left", async () => {
    const response = await makeScriptedBackend([]).query(request(repo.dir));
    expect(response.error?.kind).toBe("crash");
    expect(response.error?.message).toContain("no turn");
  });

  it("gives up at the request's timeout and stops when the request is aborted", async () => {
    const slow = makeScriptedBackend([{ delayMs: 60_000 }, { delayMs: 60_000 }]);
    const timedOut = await slow.query(request(repo.dir, { timeoutMs: 20 }));
    expect(timedOut.error?.kind).toBe("timeout");
    const controller = new AbortController();
    const pending = slow.query(request(repo.dir, { signal: controller.signal }));
    controller.abort();
    expect((await pending).error?.kind).toBe("aborted");
  });
});

describe("writeAgent", () => {
  it("writes an agent folder from objects", async () => {
    const repo = await makeFixtureRepo();
    try {
      const dir = await writeAgent(repo.dir, {
        name: "demo",
        agent: { name: "demo" },
        registry: { steps: {} },
        schemas: { "s.schema.json": { type: "object" } },
        prompts: { "steps/initial/task/f_default.md": "hello" },
      });
      expect(dir).toBe(join(repo.dir, ".agent", "demo"));
      expect(JSON.parse(await readFile(join(dir, "agent.json"), "utf8"))).toEqual({ name: "demo" });
      expect(await readFile(join(dir, "prompts/steps/initial/task/f_default.md"), "utf8")).toBe(
        "hello",
      );
      expect(JSON.parse(await readFile(join(dir, "schemas/s.schema.json"), "utf8"))).toEqual({
        type: "object",
      });
    } finally {
      await repo.cleanup();
    }
  });
});

describe("makeTestClock", () => {
  it("moves time by the waits asked for and records them, without waiting", async () => {
    const clock = makeTestClock({ startMs: 1000 });
    await clock.sleep(500);
    clock.advance(25);
    expect(clock.now()).toBe(1525);
    expect(clock.sleeps).toEqual([500]);
    expect(clock.randomId()).not.toBe(clock.randomId());
  });

  it("rejects a wait on an aborted signal", async () => {
    const clock = makeTestClock();
    await expect(clock.sleep(10, AbortSignal.abort())).rejects.toMatchObject({
      name: "AbortError",
    });
  });
});
