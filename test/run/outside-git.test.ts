import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAgent } from "../../src/definition/load-agent.js";
import { CloserError } from "../../src/errors.js";
import type { CommandValidatorDefinition } from "../../src/ports/registry.js";
import { exitCodeOfError } from "../../src/run/exit-code.js";
import { describeGitNeed } from "../../src/run/git-requirement.js";
import { runTask } from "../../src/run/index.js";
import { makeScriptedBackend, makeTestClock, writeAgent } from "../../src/testing/index.js";
import { makeTestAgent, type TestAgentOptions } from "../support/test-agent.js";

const TASK = { kind: "text", title: "Write done.txt", body: "Write done.txt." } as const;
const DONE = {
  status: "completed",
  summary: "wrote done.txt",
  next_action: { action: "complete", reason: "done" },
};
const DONE_FILE_VALIDATOR = {
  type: "command",
  command: "test -f done.txt",
  successWhen: "exitCode:0",
  failurePattern: "not-done",
};
const NOT_DONE_PATTERN = { "not-done": { description: "done.txt is missing", params: [] } };

let folder: string;
beforeEach(async () => {
  folder = await realpath(await mkdtemp(join(tmpdir(), "closer-outside-git-")));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function runIn(options: TestAgentOptions, runOptions: { branch?: string } = {}) {
  await writeAgent(folder, makeTestAgent(options));
  const agent = await loadAgent("tasker", { cwd: folder });
  const backend = makeScriptedBackend([
    { files: { "done.txt": "done\n" }, structuredOutput: DONE },
  ]);
  const run = runTask({
    agent,
    cwd: folder,
    task: TASK,
    backend,
    clock: makeTestClock(),
    ...runOptions,
  });
  return { run, backend };
}

describe("a run in a folder that is not a git repository", () => {
  it("stops with exit code 2 before any model call when a check runs git", async () => {
    const { run, backend } = await runIn({ conditions: ["git-clean"] });
    const refused = await run.catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CloserError);
    expect(exitCodeOfError(refused)).toBe(2);
    const message = (refused as CloserError).describe();
    expect(message).toContain(`${folder} is not a git repository`);
    expect(message).toContain('validator "git-clean" runs git (`git status --porcelain`)');
    expect(message).toContain("git init");
    expect(backend.calls).toHaveLength(0);
  });

  it("stops when the run would work in a worktree", async () => {
    const { run, backend } = await runIn(
      {
        patterns: NOT_DONE_PATTERN,
        validators: { done: DONE_FILE_VALIDATOR },
        conditions: ["done"],
      },
      { branch: "feature/done" },
    );
    await expect(run).rejects.toThrow(/is not a git repository: the run works in a git worktree/);
    expect(backend.calls).toHaveLength(0);
  });

  it("goes on with one warning when no check uses git", async () => {
    const { run, backend } = await runIn({
      patterns: NOT_DONE_PATTERN,
      validators: { done: DONE_FILE_VALIDATOR },
      conditions: ["done"],
    });
    const outcome = await run;
    expect(outcome).toMatchObject({ status: "completed", success: true });
    expect(backend.calls).toHaveLength(1);
    const warnings = outcome.warnings.filter((warning) => warning.includes("not a git repository"));
    expect(warnings).toEqual([
      `${folder} is not a git repository, so the run goes on without git: closer makes no commits and no check can use git`,
    ]);
  });
});

describe("describeGitNeed", () => {
  const command = (line: string): CommandValidatorDefinition => ({
    type: "command",
    name: "check",
    command: line,
    successWhen: { kind: "exitCode", code: 0 },
    successWhenText: "exitCode:0",
    timeoutMs: 1000,
    failurePattern: "failed",
    extractParams: {},
    reruns: 0,
    cache: true,
  });

  it.each([
    "git status --porcelain",
    "npm test && git diff --exit-code",
    "/usr/bin/git log -1",
    'test -z "$(git status --porcelain)"',
    "git",
  ])("finds git run by %s", (line) => {
    expect(describeGitNeed(command(line))).toContain("runs git");
  });

  it.each(["npm test", "gitleaks detect", "ls .git", "echo digit", "./scripts/git-free.sh"])(
    "finds no git in %s",
    (line) => {
      expect(describeGitNeed(command(line))).toBeUndefined();
    },
  );

  it("finds git's status read by an extractor", () => {
    const reads = { ...command("cat status.txt"), extractParams: { files: "parseChangedFiles" } };
    expect(describeGitNeed(reads as CommandValidatorDefinition)).toContain("parseChangedFiles");
  });
});
