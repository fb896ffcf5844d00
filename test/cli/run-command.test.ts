import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { makeRunCommand } from "../../src/cli/run-command.js";
import type { FixtureRepo } from "../../src/testing/index.js";
import { type FakeGithub, startFakeGithub } from "../doubles/fake-github/index.js";
import { exists, git, TOKEN } from "../run/support/issue-repo.js";
import { cli, makeCliRepo } from "./support/cli-repo.js";

const RESULT_FIELDS = ["success", "status", "reason", "iterations", "runId", "runDir", "costUsd"];

describe("closer run", () => {
  let repo: FixtureRepo | undefined;
  let github: FakeGithub | undefined;
  beforeEach(async () => {
    repo = await makeCliRepo();
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await github?.close();
    github = undefined;
    await repo?.cleanup();
    repo = undefined;
  });
  const dir = () => repo?.dir ?? "";

  it("--json prints exactly one line, the result, and exits 0 when the work is verified", async () => {
    const result = await cli(
      "run",
      "good",
      "--task",
      "write work.txt",
      "--cwd",
      dir(),
      "--no-worktree",
      "--json",
    );
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(1);
    expect(result.stdout.endsWith("\n")).toBe(true);
    const parsed = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(RESULT_FIELDS);
    expect(parsed).toMatchObject({ success: true, status: "completed", iterations: 1, costUsd: 0 });
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
    const result = await cli(
      "run",
      "lazy",
      "--task",
      "do nothing",
      "--cwd",
      dir(),
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
    const result = await cli(
      "run",
      "unauthorized",
      "--task",
      "t",
      "--cwd",
      dir(),
      "--no-worktree",
      "--json",
    );
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ success: false, status: "error" });
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
    const result = await cli(
      "run",
      "params",
      "--task",
      "t",
      "--cwd",
      dir(),
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
      text: "unknown option --flavor",
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

  it("lists the agent's parameters and closer's options for an unknown flag", async () => {
    const result = await cli("run", "params", "--task", "t", "--cwd", dir(), "--flavor", "mint");
    expect(result.stderr).toContain("--flavour <string>  the flavour (required)");
    expect(result.stderr).toContain("--count <number>  how many");
    expect(result.stderr).toContain("--max-iterations <n>");
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

  describe("with GitHub", () => {
    beforeEach(async () => {
      github = await startFakeGithub({
        token: TOKEN,
        issues: [
          { number: 5, title: "Write the work file", labels: ["ready"] },
          { number: 6, title: "Write it again", labels: ["ready"] },
        ],
      });
      vi.stubEnv("GITHUB_TOKEN", TOKEN);
      vi.stubEnv("GITHUB_API_URL", github.url);
    });

    it("runs an issue in its worktree, merges it and closes the issue, never printing the token", async () => {
      const result = await cli(
        "run",
        "good",
        "--issue",
        "5",
        "--repo",
        "acme/widgets",
        "--cwd",
        dir(),
        "--json",
      );
      expect(result.stderr).not.toContain(TOKEN);
      expect(result.stdout).not.toContain(TOKEN);
      expect(result.code).toBe(0);
      const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(parsed).toMatchObject({
        success: true,
        status: "completed",
        issue: 5,
        worktree: { branch: "closer/issue-5", baseBranch: "main", action: "merged" },
      });
      expect(github?.state.issues[0]?.state).toBe("closed");
      expect(await git(dir(), "show", "main:work.txt")).toBe("done");
    });

    it("--resume continues a failed issue run in its worktree without a second failure comment", async () => {
      const first = await cli(
        "run",
        "lazy",
        "--issue",
        "5",
        "--repo",
        "acme/widgets",
        "--cwd",
        dir(),
        "--max-iterations",
        "1",
        "--json",
      );
      expect(first.code).toBe(1);
      const failed = JSON.parse(first.stdout) as { runId: string; worktree: { path: string } };
      expect(github?.state.issues[0]?.comments).toHaveLength(1);
      const resumed = await cli(
        "run",
        "lazy",
        "--resume",
        failed.runId,
        "--repo",
        "acme/widgets",
        "--cwd",
        dir(),
        "--max-iterations",
        "2",
        "--json",
      );
      expect(resumed.code).toBe(1);
      const parsed = JSON.parse(resumed.stdout) as Record<string, unknown>;
      expect(parsed).toMatchObject({
        runId: failed.runId,
        status: "retries_exhausted",
        iterations: 2,
        worktree: { path: failed.worktree.path, action: "kept" },
      });
      expect(github?.state.issues[0]?.comments).toHaveLength(1);
      expect(github?.state.issues[0]?.state).toBe("open");

      const unknown = await cli("run", "lazy", "--resume", "no-such-run", "--cwd", dir());
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("no run record at");
    });

    it("exits 2 when GitHub rejects the token and 1 on a rate limit", async () => {
      vi.stubEnv("GITHUB_TOKEN", "ghp_wrongToken0123456789");
      const rejected = await cli(
        "run",
        "good",
        "--issue",
        "5",
        "--repo",
        "acme/widgets",
        "--cwd",
        dir(),
      );
      expect(rejected.code).toBe(2);
      expect(rejected.stderr).toContain("GitHub rejected the token (401 Bad credentials)");
      expect(rejected.stderr).toContain("GITHUB_TOKEN");
      expect(rejected.stderr).not.toContain("ghp_wrongToken0123456789");
      vi.stubEnv("GITHUB_TOKEN", TOKEN);
      github?.rateLimit({ retryAfterSeconds: 120 });
      const limited = await cli(
        "run",
        "good",
        "--issue",
        "5",
        "--repo",
        "acme/widgets",
        "--cwd",
        dir(),
      );
      expect(limited.code).toBe(1);
      expect(limited.stderr).toContain("rate limit");
    });

    it("runs every labelled issue and prints one JSON line with every result and a table on stderr", async () => {
      const result = await cli(
        "run",
        "lazy",
        "--label",
        "ready",
        "--concurrency",
        "2",
        "--repo",
        "acme/widgets",
        "--cwd",
        dir(),
        "--max-iterations",
        "1",
        "--json",
      );
      expect(result.code).toBe(1);
      const lines = result.stdout.split("\n").filter((line) => line !== "");
      expect(lines).toHaveLength(1);
      const parsed = JSON.parse(lines[0] ?? "") as {
        success: boolean;
        results: Record<string, unknown>[];
      };
      expect(parsed.success).toBe(false);
      expect(parsed.results.map((entry) => entry.issue).sort()).toEqual([5, 6]);
      for (const entry of parsed.results) {
        expect(entry).toMatchObject({ success: false, status: "max_iterations" });
        expect(await exists(String((entry.worktree as { path: string }).path))).toBe(true);
      }
      expect(result.stderr).toMatch(/issue\s+status\s+iterations\s+cost\s+worktree/);
      expect(result.stderr).toMatch(/#5\s+max_iterations\s+1\s+\$0\.0000\s+\S+closer-issue-5/);
      expect(result.stderr).toContain("#6 ▸ iteration 1");
      expect(github?.state.issues.every((issue) => issue.state === "open")).toBe(true);

      const listed = await cli("worktrees", "--cwd", dir());
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain("closer/issue-5");
      // The lazy agent committed nothing, so its branch is still where main is.
      expect(listed.stdout).toMatch(
        /issue #5 · clean · merged into main · last run: max_iterations \(run \S+\)/,
      );
      const pruned = await cli("worktrees", "prune", "--cwd", dir());
      expect(pruned.code).toBe(0);
      expect(pruned.stdout).toMatch(
        /removed \S+closer-issue-5 \(closer\/issue-5\): its branch is merged into main; branch deleted/,
      );
      expect(await cli("worktrees", "--cwd", dir())).toMatchObject({
        stdout: "No closer worktrees.\n",
      });
    });
  });
});
