import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { FixtureRepo } from "../../src/testing/index.js";
import { type FakeGithub, startFakeGithub } from "../doubles/fake-github/index.js";
import { exists, git, readTree, TOKEN } from "../run/support/issue-repo.js";
import { cli, makeCliRepo } from "./support/cli-repo.js";

describe("closer run with GitHub", () => {
  let repo: FixtureRepo | undefined;
  let github: FakeGithub | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await github?.close();
    github = undefined;
    await repo?.cleanup();
    repo = undefined;
  });
  const dir = () => repo?.dir ?? "";
  /** `closer run AGENT --issue 5 --repo acme/widgets --cwd <repo> …` */
  const runIssueFive = (agent: string, ...extra: string[]) =>
    cli("run", agent, "--issue", "5", "--repo", "acme/widgets", "--cwd", dir(), ...extra);

  beforeEach(async () => {
    repo = await makeCliRepo();
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
    const result = await runIssueFive("good", "--json");
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

  it("--no-worktree runs an issue in the project folder itself, and still closes it", async () => {
    const result = await runIssueFive("good", "--no-worktree", "--json");
    expect(result.code, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(parsed).toMatchObject({ success: true, status: "completed", issue: 5 });
    expect(parsed.worktree).toBeUndefined();
    expect(await git(dir(), "show", "HEAD:work.txt")).toBe("done");
    expect(await git(dir(), "branch", "--list", "closer/issue-5")).toBe("");
    expect(github?.state.issues[0]?.state).toBe("closed");
  });

  it("--resume continues a failed issue run in its worktree without a second failure comment", async () => {
    const first = await runIssueFive("lazy", "--max-iterations", "1", "--json");
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

  it("exits 2 before any work when GITHUB_TOKEN is missing", async () => {
    vi.stubEnv("GITHUB_TOKEN", "");
    const result = await runIssueFive("good");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("GITHUB_TOKEN is not set");
    expect(result.stderr).toContain("export GITHUB_TOKEN=");
    expect(github?.requests).toEqual([]);
    expect(await exists(`${dir()}/.git/closer/runs`)).toBe(false);
  });

  it("exits 2 when GitHub rejects the token and 1 on a rate limit", async () => {
    vi.stubEnv("GITHUB_TOKEN", "ghp_wrongToken0123456789");
    const rejected = await runIssueFive("good");
    expect(rejected.code).toBe(2);
    expect(rejected.stderr).toContain("GitHub rejected the token (401 Bad credentials)");
    expect(rejected.stderr).toContain("GITHUB_TOKEN");
    expect(rejected.stderr).not.toContain("ghp_wrongToken0123456789");
    vi.stubEnv("GITHUB_TOKEN", TOKEN);
    github?.rateLimit({ retryAfterSeconds: 120 });
    const limited = await runIssueFive("good");
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

  it("a batch completes, merges, labels and closes two issues once each, keeps the third's worktree, and exits 1", async () => {
    github?.state.issues.push({
      repo: "acme/widgets",
      number: 7,
      title: "Impossible",
      body: "",
      state: "open",
      labels: ["ready"],
      comments: [],
      pullRequest: false,
    });
    const writes = (line: string) =>
      github?.requests.filter((request) => `${request.method} ${request.path}` === line).length;
    const result = await cli(
      "run",
      "picky",
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
    const { results } = JSON.parse(result.stdout) as { results: Record<string, unknown>[] };
    const byIssue = new Map(results.map((entry) => [entry.issue, entry]));
    for (const number of [5, 6]) {
      expect(byIssue.get(number)).toMatchObject({
        success: true,
        status: "completed",
        worktree: { action: "merged" },
      });
      const issue = github?.state.issues.find((candidate) => candidate.number === number);
      expect(issue).toMatchObject({ state: "closed", labels: ["done"] });
      expect(issue?.comments).toHaveLength(1);
      expect(writes(`PATCH /api/v3/repos/acme/widgets/issues/${number}`)).toBe(1);
    }
    const failed = byIssue.get(7) as { status: string; worktree: { path: string; action: string } };
    expect(failed.status).toBe("max_iterations");
    expect(failed.worktree.action).toBe("kept");
    expect(await exists(failed.worktree.path)).toBe(true);
    const impossible = github?.state.issues.find((candidate) => candidate.number === 7);
    expect(impossible).toMatchObject({ state: "open", labels: ["ready"] });
    expect(impossible?.comments.map((comment) => comment.body).join()).toContain(
      failed.worktree.path,
    );
    expect(writes("PATCH /api/v3/repos/acme/widgets/issues/7")).toBe(0);
    expect(await git(dir(), "show", "main:work.txt")).toBe("done");
    for (const entry of results) {
      for (const file of await readTree(String(entry.runDir))) {
        expect(file.text, file.path).not.toContain(TOKEN);
      }
    }
  });
});
