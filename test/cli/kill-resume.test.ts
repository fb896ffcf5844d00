import { spawn } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { FixtureRepo } from "../../src/testing/index.js";
import { type FakeGithub, startFakeGithub } from "../doubles/fake-github/index.js";
import { readTree, TOKEN } from "../run/support/issue-repo.js";
import { cli, makeCliRepo } from "./support/cli-repo.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const ISSUE_PATH = "/api/v3/repos/acme/widgets/issues/5";

function count(github: FakeGithub, method: string, path: string): number {
  return github.requests.filter(
    (request) => request.method === method && request.path.split("?")[0] === path,
  ).length;
}

describe("closer killed while it performs the GitHub side effects", () => {
  let repo: FixtureRepo | undefined;
  let github: FakeGithub | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await github?.close();
    await repo?.cleanup();
    github = undefined;
    repo = undefined;
  });

  it("docs/integrity.md#resume a run killed during its GitHub steps is on record as completed: --resume checks it again and finishes the steps, each once", async () => {
    repo = await makeCliRepo();
    github = await startFakeGithub({
      token: TOKEN,
      issues: [{ number: 5, title: "Write the work file", labels: ["ready"] }],
    });
    // GitHub gets the completion comment, but closer is killed before it hears back.
    const held = github.holdReply(`POST ${ISSUE_PATH}/comments`);
    const args = ["run", "good", "--issue", "5", "--repo", "acme/widgets", "--cwd", repo.dir];
    const child = spawn(process.execPath, ["--import", TSX_LOADER, MAIN, ...args, "--json"], {
      cwd: repo.dir,
      env: { ...process.env, GITHUB_TOKEN: TOKEN, GITHUB_API_URL: github.url },
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    await held.arrived;
    child.kill("SIGKILL");
    await exited;
    held.release();
    expect(github.state.issues[0]?.comments).toHaveLength(1);
    expect(github.state.issues[0]?.state).toBe("open");

    const runsDir = join(repo.dir, ".git/closer/runs");
    const [runId = ""] = await readdir(runsDir);
    vi.stubEnv("GITHUB_TOKEN", TOKEN);
    vi.stubEnv("GITHUB_API_URL", github.url);
    const requestsBefore = github.requests.length;
    const resumed = await cli(
      "run",
      "good",
      "--resume",
      runId,
      "--repo",
      "acme/widgets",
      "--cwd",
      repo.dir,
      "--json",
    );

    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "completed", success: true });
    expect(github.requests.length).toBeGreaterThan(requestsBefore);
    const issue = github.state.issues[0];
    expect(issue?.comments).toHaveLength(1); // the comment's marker is found, not posted again
    expect(issue?.state).toBe("closed");
    expect(count(github, "PATCH", ISSUE_PATH)).toBe(1);
    for (const file of await readTree(join(runsDir, runId))) {
      expect(file.text, file.path).not.toContain(TOKEN);
    }
  }, 30_000);
});
