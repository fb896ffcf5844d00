import { afterEach, describe, expect, vi } from "vitest";
import { cli } from "../cli/support/cli-repo.js";
import { type FakeGithub, startFakeGithub } from "../doubles/fake-github/index.js";
import { TOKEN } from "../run/support/issue-repo.js";
import { fault } from "./support/fault.js";
import { type FaultRepo, makeFaultRepo, READ_PROMPT } from "./support/fault-repo.js";
import { onlyRunFolder, readRunJson, runFolders } from "./support/run-folder.js";
import { expectUserStateKept, takeUserState } from "./support/user-state.js";

/** A model that writes the work file, commits it and declares done. */
const WORKING_MODEL = [
  'import { execFileSync } from "node:child_process";',
  'import { writeFileSync } from "node:fs";',
  READ_PROMPT,
  'writeFileSync("work.txt", "done\\n");',
  'execFileSync("git", ["add", "work.txt"]);',
  'execFileSync("git", ["commit", "--quiet", "-m", "work"]);',
  'console.log(JSON.stringify({ status: "completed", summary: "wrote work.txt", next_action: { action: "complete", reason: "done" } }));',
].join("\n");

describe("GitHub", () => {
  let repo: FaultRepo | undefined;
  let github: FakeGithub | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await github?.close();
    await repo?.cleanup();
    github = undefined;
    repo = undefined;
  });

  async function setUp(token: string | undefined = TOKEN) {
    repo = await makeFaultRepo({ program: WORKING_MODEL });
    github = await startFakeGithub({
      token: TOKEN,
      issues: [{ number: 5, title: "Write the work file", labels: ["ready"] }],
    });
    vi.stubEnv("GITHUB_TOKEN", token);
    vi.stubEnv("GH_TOKEN", undefined);
    vi.stubEnv("GITHUB_API_URL", github.url);
    return { repo, github, before: await takeUserState(repo.dir) };
  }

  const runIssue = (dir: string) =>
    cli("run", "faulty", "--issue", "5", "--repo", "acme/widgets", "--cwd", dir, "--json");

  fault(
    {
      what: "GitHub rejects the token (401)",
      does: "exit 2 before the model is asked anything: the message says the token was refused and how to give one",
    },
    async () => {
      const { repo, before } = await setUp("ghp_wrongToken0123456789abcdefghijklmn");
      const result = await runIssue(repo.dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/token/i);
      expect(await runFolders(repo.dir)).toEqual([]);
      await expectUserStateKept(repo.dir, before);
    },
  );

  fault(
    {
      what: "the issue does not exist (404)",
      does: "exit 2 before the model is asked anything, naming the issue and the repository",
    },
    async () => {
      const { repo, github, before } = await setUp();
      github.failWith({ status: 404, match: "GET /api/v3/repos/acme/widgets/issues/5" });
      const result = await runIssue(repo.dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/not found/i);
      expect(result.stderr).toContain("acme/widgets");
      await expectUserStateKept(repo.dir, before);
    },
  );

  fault(
    {
      what: "GitHub's rate limit is spent before the run",
      does: "exit 1 before the model is asked anything, saying when the limit resets",
    },
    async () => {
      const { repo, github } = await setUp();
      github.rateLimit({ retryAfterSeconds: 60 });
      const result = await runIssue(repo.dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/rate limit/i);
      expect(await runFolders(repo.dir)).toEqual([]);
    },
  );

  fault(
    {
      what: "GitHub fails (502) while closer closes a verified issue",
      does: "exit 1: the run is on record as `completed` with the steps done so far; the message names the step left to finish; a resume checks the commit again and finishes only that step",
    },
    async () => {
      const { repo, github } = await setUp();
      github.failWith({ status: 502, match: "PATCH /api/v3/repos/acme/widgets/issues/5" });
      const result = await runIssue(repo.dir);
      expect(result.code).toBe(1);
      const json = JSON.parse(result.stdout.trim()) as Record<string, unknown>;
      expect(json).toMatchObject({ status: "completed", success: false });
      expect(String(json.reason)).toContain("the work is verified; finish it with: closer run ");
      const runDir = await onlyRunFolder(repo.dir);
      const state = await readRunJson(runDir);
      expect(state.sideEffects).toContain("comment:completion");
      expect(state.sideEffects).not.toContain("close");
      const comments = github.state.issues[0]?.comments.length;
      const resumed = await cli(
        "run",
        "faulty",
        "--resume",
        String(state.runId),
        "--repo",
        "acme/widgets",
        "--cwd",
        repo.dir,
      );
      expect(resumed.code).toBe(0);
      expect(github.state.issues[0]?.state).toBe("closed");
      expect(github.state.issues[0]?.comments.length).toBe(comments);
    },
    60_000,
  );
});
