import { spawn } from "node:child_process";
import { chmod, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { FixtureRepo } from "../../src/testing/index.js";
import { type FakeGithub, startFakeGithub } from "../doubles/fake-github/index.js";
import { TOKEN } from "../run/support/issue-repo.js";
import { readRecordedEvents } from "../run/support/recorded-events.js";
import { makeCliRepo } from "./support/cli-repo.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const MODEL_KEY = "sk-ant-neverInAHook0123456789";

/** A post-merge hook that shows its arguments and environment on stderr and fails (git ignores it). */
const POST_MERGE = [
  "#!/bin/sh",
  "env >&2",
  "tr '\\0' '\\n' < /proc/self/environ >&2",
  'echo "args: $*" >&2',
  "exit 3",
  "",
].join("\n");

function closerRun(repo: FixtureRepo, github: FakeGithub): Promise<number | null> {
  const args = ["run", "good", "--issue", "5", "--repo", "acme/widgets", "--cwd", repo.dir];
  const child = spawn(process.execPath, ["--import", TSX_LOADER, MAIN, ...args, "--json"], {
    cwd: repo.dir,
    env: {
      ...process.env,
      GITHUB_TOKEN: TOKEN,
      GITHUB_API_URL: github.url,
      ANTHROPIC_API_KEY: MODEL_KEY,
    },
    stdio: "ignore",
  });
  return new Promise((resolve) => child.on("exit", resolve));
}

describe("closer run and the repository's hooks (docs/worktrees-and-github.md#git-hooks)", () => {
  let repo: FixtureRepo | undefined;
  let github: FakeGithub | undefined;
  afterEach(async () => {
    await github?.close();
    await repo?.cleanup();
    github = undefined;
    repo = undefined;
  });

  it("runs post-merge of the verified merge itself, without credentials, and records it", async () => {
    repo = await makeCliRepo();
    github = await startFakeGithub({
      token: TOKEN,
      issues: [{ number: 5, title: "Write the work file", labels: ["ready"] }],
    });
    const hook = join(repo.dir, ".git", "hooks", "post-merge");
    await writeFile(hook, POST_MERGE);
    await chmod(hook, 0o755);

    expect(await closerRun(repo, github)).toBe(0);

    const runsDir = join(repo.dir, ".git/closer/runs");
    const [runId = ""] = await readdir(runsDir);
    const events = await readRecordedEvents(join(runsDir, runId));
    const hooks = events.filter((event) => event.type === "git-hook");
    expect(hooks).toHaveLength(1);
    const [ran] = hooks;
    expect(ran).toMatchObject({ hook: "post-merge", operation: "merge", ran: true, exitCode: 3 });
    // In the validators' sandbox where the sandbox runs, with the same environment where it cannot.
    const sandbox = events.find((event) => event.type === "sandbox");
    expect(ran?.sandboxed).toBe(sandbox?.on === true);
    const shown = String(ran?.detail);
    expect(shown).toContain("args: 0");
    expect(shown).toContain("PATH=");
    expect(shown).not.toContain(TOKEN);
    expect(shown).not.toContain(MODEL_KEY);
    expect(shown).not.toMatch(/^(GITHUB_TOKEN|GH_TOKEN|ANTHROPIC_API_KEY)=/m);
    // The merge's side effect still went through: a post-merge hook cannot undo a merge.
    const merge = events.find(
      (event) => event.type === "side-effect" && event.action === "worktree-merge",
    );
    expect(merge).toMatchObject({ ok: true });
  }, 60_000);
});
