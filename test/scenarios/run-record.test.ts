import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { BackendRequest } from "../../src/ports/backend.js";
import type { RunEvent } from "../../src/ports/events.js";
import { readRunState } from "../../src/record/run-record.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { COMMIT_ALL, DONE, FIXED_ADD, makeTaskRepo, runTask, TASK } from "./support/task-agent.js";

const DECISION_FILE = ".closer/decision.json";

async function readAll(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile());
  const texts = await Promise.all(
    files.map((file) => readFile(join(file.parentPath, file.name), "utf8")),
  );
  return texts.join("\n");
}

describe("scenarios: the run record", () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it("never makes the working tree dirty: runs go under the git folder", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const backend = makeScriptedBackend([
      { structuredOutput: DONE },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result } = await runTask(setup, backend);

    expect(result.status).toBe("completed");
    expect(result.runDir.startsWith(join(setup.repo.dir, ".git"))).toBe(true);
    expect(await repoStatus(setup.repo)).toBe("");
    expect(await readdir(join(result.runDir, "prompts"))).toEqual([
      "iteration-001.md",
      "iteration-002.md",
    ]);
    expect(await readdir(join(result.runDir, "transcripts"))).toEqual([
      "iteration-001.json",
      "iteration-002.json",
    ]);
  });

  it("docs/record.md#events events.jsonl tells what happened, and run.json where the run stands", async () => {
    const setup = await makeTaskRepo({
      textOnly: true,
      completionStep: { responseFormat: { type: "text-pattern", pattern: "^Done" } },
    });
    cleanup = setup.repo.cleanup;
    const usage = {
      inputTokens: 100,
      outputTokens: 20,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
    };
    const declare = (request: BackendRequest) => ({
      [request.env.CLOSER_DECISION_FILE ?? DECISION_FILE]: JSON.stringify({
        decision: "complete",
        check_id: request.env.CLOSER_CHECK_ID,
      }),
    });
    const backend = makeScriptedBackend([
      (request) => ({ files: declare(request), text: "Done.", costUsd: 0.25, usage }),
      (request) => ({
        files: { ...declare(request), "src/add.js": FIXED_ADD },
        commands: [COMMIT_ALL],
        text: "Done.",
        costUsd: 0.5,
        usage,
      }),
    ]);
    const { result } = await runTask(setup, backend);
    expect(result.status).toBe("completed");

    const events = (await readFile(join(result.runDir, "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as RunEvent);
    const of = <T extends RunEvent["type"]>(type: T) =>
      events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);
    expect(of("iteration-start").map((event) => event.iteration)).toEqual([1, 2]);
    expect(of("prompt").map((event) => [event.kind, event.templatePath])).toEqual([
      ["step", "prompts/steps/initial/task/f_default.md"],
      ["retry", "prompts/steps/retry/task/f_failed_test-failed.md"],
    ]);
    expect(of("backend-end").map((event) => [event.costUsd, event.usage])).toEqual([
      [0.25, usage],
      [0.5, usage],
    ]);
    expect(of("completion-signal").map((event) => event.declared)).toEqual([true, true]);
    expect(of("format-check").map((event) => event.valid)).toEqual([true, true]);
    const failed = of("validator-end").find((event) => !event.valid);
    expect(failed).toMatchObject({ validator: "tests-pass", exitCode: 1 });
    expect(failed?.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(failed?.params.failedTests)).toContain("adds two numbers");
    expect(of("decision").map((event) => [event.source, event.checkIdMatch])).toEqual([
      ["file-json", true],
      ["file-json", true],
    ]);
    expect(of("decision").map((event) => event.checkId)).toEqual(
      backend.calls.map((call) => call.env.CLOSER_CHECK_ID),
    );
    expect(of("retry-select").map((event) => event.pattern)).toEqual(["test-failed"]);
    expect(of("budget").map((event) => event.costUsd)).toEqual([0, 0.25]);
    expect(events.at(-1)).toMatchObject({ type: "run-end", status: "completed", costUsd: 0.75 });

    const state = await readRunState(result.runDir);
    expect(state).toMatchObject({
      status: "completed",
      agent: "tasker",
      task: { title: TASK.title },
      iteration: 2,
      sessionId: "session-1",
      totals: { costUsd: 0.75, usage: { inputTokens: 200, outputTokens: 40 } },
    });
  });

  it("keeps secrets of the environment out of every file it writes", async () => {
    const setup = await makeTaskRepo();
    cleanup = setup.repo.cleanup;
    const token = "ghp_0123456789abcdefSECRET";
    const backend = makeScriptedBackend([
      { structuredOutput: { ...DONE, summary: `used token ${token}` }, text: `token=${token}` },
      { files: { "src/add.js": FIXED_ADD }, commands: [COMMIT_ALL], structuredOutput: DONE },
    ]);
    const { result } = await runTask(setup, backend, {
      env: { GITHUB_TOKEN: token, HOME: "/home/someone" },
      task: { kind: "text", title: "fix add", body: `the token is ${token}` },
    });

    const everything = await readAll(result.runDir);
    expect(everything).not.toContain(token);
    expect(everything).toContain("[redacted]");
    expect(backend.calls[0]?.prompt).toContain(token);
  });
});

async function repoStatus(repo: { git(...args: string[]): Promise<{ stdout: string }> }) {
  return (await repo.git("status", "--porcelain")).stdout;
}
