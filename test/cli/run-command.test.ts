import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { makeRunCommand } from "../../src/cli/run-command.js";
import type { FixtureRepo } from "../../src/testing/index.js";
import { exists, git } from "../run/support/issue-repo.js";
import { cli, makeCliRepo } from "./support/cli-repo.js";

const RESULT_FIELDS = [
  "success",
  "status",
  "reason",
  "iterations",
  "runId",
  "runDir",
  "costUsd",
  "costByReason",
  "refutedDeclarations",
  "flaky",
  "sandbox",
];

describe("closer run", () => {
  let repo: FixtureRepo | undefined;
  beforeEach(async () => {
    repo = await makeCliRepo();
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await repo?.cleanup();
    repo = undefined;
  });
  const dir = () => repo?.dir ?? "";
  /** `closer run <agent> --task <task> --cwd <the fixture repository> <flags…>`. */
  const run = (agent: string, task: string, ...flags: string[]) =>
    cli("run", agent, "--task", task, "--cwd", dir(), ...flags);

  it("--json prints exactly one line, the result, and exits 0 when the work is verified", async () => {
    const result = await run("good", "write work.txt", "--no-worktree", "--json");
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(1);
    expect(result.stdout.endsWith("\n")).toBe(true);
    const parsed = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(RESULT_FIELDS);
    expect(parsed).toMatchObject({
      success: true,
      status: "completed",
      iterations: 1,
      costUsd: 0,
      costByReason: { initial: { queries: 1, costUsd: 0 } },
      refutedDeclarations: 0,
      flaky: [],
    });
    expect(await exists(join(String(parsed.runDir), "run.json"))).toBe(true);
    expect(result.stderr).toContain("iteration 1");
  });

  it("without --json prints the result and the run folder on stderr", async () => {
    const result = await cli(
      "run",
      "--agent",
      "good",
      "--task",
      "write work.txt",
      "--cwd",
      dir(),
      "--no-worktree",
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("completed after 1 iteration(s)");
    expect(result.stderr).toMatch(/run folder: .*closer\/runs\//);
  });

  it("exits 1 when the run ends without verified completion", async () => {
    const result = await run(
      "lazy",
      "do nothing",
      "--no-worktree",
      "--max-iterations",
      "2",
      "--json",
    );
    expect(result.code).toBe(1);
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    // The lazy agent declares done each time; its checks fail maxAttempts (2) times.
    expect(parsed).toMatchObject({ success: false, status: "retries_exhausted", iterations: 2 });
  });

  it("exits 3 when the backend fails for good (a rejected API key)", async () => {
    const result = await run("unauthorized", "t", "--no-worktree", "--json");
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ success: false, status: "error" });
  });

  it("honours --branch, --base-branch, --runs-dir, --model and --verbose", async () => {
    await git(dir(), "branch", "develop");
    const runsDir = join(dir(), ".closer/elsewhere");
    const result = await run(
      "good",
      "write work.txt",
      "--branch",
      "feature/work",
      "--base-branch",
      "develop",
      "--runs-dir",
      runsDir,
      "--model",
      "model-from-flag",
      "--verbose",
      "--json",
    );
    expect(result.code, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout) as { runDir: string; worktree: unknown };
    expect(parsed.worktree).toMatchObject({
      branch: "feature/work",
      baseBranch: "develop",
      action: "merged",
    });
    expect(parsed.runDir.startsWith(`${runsDir}/`)).toBe(true);
    expect(await git(dir(), "show", "develop:work.txt")).toBe("done");
    expect(await git(dir(), "ls-tree", "--name-only", "main")).not.toContain("work.txt");
    const events = await readFile(join(parsed.runDir, "events.jsonl"), "utf8");
    expect(events).toContain('"model":"model-from-flag"');
    expect(result.stderr).toContain("prompt (step)");
  });

  it("--backend replaces agent.json's backend", async () => {
    const result = await run("good", "t", "--backend", "replay");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("runner.backend.replayFrom");
  });

  it("reads --task-file: the first heading is the title", async () => {
    const taskFile = join(dir(), "TASK.md");
    await import("node:fs/promises").then((fs) =>
      fs.writeFile(taskFile, "# Write the work file\n\nPlease.\n"),
    );
    const result = await cli(
      "run",
      "good",
      "--task-file",
      taskFile,
      "--cwd",
      dir(),
      "--no-worktree",
      "--json",
    );
    expect(result.code).toBe(0);
    const { runDir } = JSON.parse(result.stdout) as { runDir: string };
    const state = JSON.parse(await readFile(join(runDir, "run.json"), "utf8")) as { task: unknown };
    expect(state.task).toEqual({ kind: "text", title: "Write the work file", body: "Please." });
  });

  it("gives the agent's declared parameters, typed, to its templates", async () => {
    const result = await run(
      "params",
      "t",
      "--no-worktree",
      "--flavour",
      "mint",
      "--count=3",
      "--json",
    );
    expect(result.code).toBe(0);
    const { runDir } = JSON.parse(result.stdout) as { runDir: string };
    const prompt = await readFile(join(runDir, "prompts", "iteration-001.md"), "utf8");
    expect(prompt).toContain("Flavour mint, count 3.");
  });

  it("refuses an agent that closer validate rejects, before any model call", async () => {
    const registryFile = join(dir(), ".agent", "good", "steps_registry.json");
    const registry = JSON.parse(await readFile(registryFile, "utf8"));
    registry.steps["initial.issue"].next = "no.such.step";
    await writeFile(registryFile, JSON.stringify(registry));
    const result = await run("good", "t", "--no-worktree");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the agent "good" has 1 problem(s), so nothing was run');
    expect(result.stderr).toContain('steps["initial.issue"].next');
    expect(result.stderr).toContain("no.such.step");
    expect(await exists(join(dir(), "work.txt"))).toBe(false);
  });

  it.each([
    {
      name: "two different agents",
      args: ["run", "good", "--agent", "lazy", "--task", "t"],
      text: 'two different agents named: "good" and --agent "lazy"',
    },
    { name: "no task", args: ["run", "good"], text: "missing task" },
    {
      name: "an unknown agent flag",
      args: ["run", "params", "--task", "t", "--flavor", "mint"],
      text: "unknown option '--flavor' (did you mean --flavour?)",
    },
    {
      name: "a missing required parameter",
      args: ["run", "params", "--task", "t"],
      text: 'agent "params" needs --flavour',
    },
    {
      name: "a missing task file",
      args: ["run", "good", "--task-file", "/nowhere/TASK.md"],
      text: "the task file does not exist",
    },
    { name: "an unknown agent", args: ["run", "nobody", "--task", "t"], text: "nobody" },
    {
      name: "an unknown backend",
      args: ["run", "good", "--task", "t", "--backend", "gpt"],
      text: '--backend "gpt" is not a backend',
    },
  ])("exits 2 with a clear message for $name", async ({ args, text }) => {
    const result = await cli(...args, "--cwd", dir(), "--json");
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(text);
  });

  it("names the agent's own options for an unknown flag, without the whole help", async () => {
    const result = await run("params", "t", "--flavor", "mint");
    expect(result.stderr).toContain(
      'agent "params" also takes --flavour <string>, --count <number>',
    );
    expect(result.stderr).toContain("see closer run --help");
    expect(result.stderr).not.toContain("--max-iterations");
  });

  it("--help explains every option", async () => {
    const result = await cli("run", "--help");
    expect(result.code).toBe(0);
    const options = makeRunCommand().options;
    expect(options.length).toBeGreaterThan(15);
    for (const option of options) {
      expect(option.description.length, option.flags).toBeGreaterThan(10);
      expect(result.stdout, option.flags).toContain(option.flags);
    }
    expect(result.stdout).toContain("Exit codes: 0 completed");
    expect(result.stdout).toContain("parameters.<name>.flag");
  });
});
