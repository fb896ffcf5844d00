import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runIssue } from "../../src/run/index.js";
import { makeScriptedBackend } from "../../src/testing/index.js";
import { prepareWorktree } from "../../src/workspace/index.js";
import { type FakeGithub, startFakeGithub } from "../doubles/fake-github/index.js";
import {
  BROKEN_TURN,
  baseOptions,
  exists,
  type IssueRepo,
  makeIssueRepo,
  TOKEN,
} from "../run/support/issue-repo.js";
import { cli } from "./support/cli-repo.js";

describe("closer worktrees", () => {
  let setup: IssueRepo | undefined;
  let github: FakeGithub | undefined;
  afterEach(async () => {
    await github?.close();
    await setup?.cleanup();
    setup = undefined;
    github = undefined;
  });

  it("lists each worktree with its last run, and prune keeps uncommitted work and unmerged branches", async () => {
    setup = await makeIssueRepo();
    github = await startFakeGithub({ token: TOKEN, issues: [{ number: 3, title: "Impossible" }] });
    const failed = await runIssue({
      ...baseOptions(setup, github.url),
      issue: 3,
      backend: makeScriptedBackend([BROKEN_TURN, BROKEN_TURN, BROKEN_TURN]),
    });
    expect(failed.status).toBe("retries_exhausted");
    const dirty = await prepareWorktree({ repoRoot: setup.repo.dir, issue: 9 });
    await writeFile(join(dirty.path, "scratch.txt"), "unsaved\n");

    const listed = await cli("worktrees", "--cwd", setup.repo.dir);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`closer/issue-3  ${failed.worktree?.path}`);
    expect(listed.stdout).toContain(
      `issue #3 · clean · not merged · last run: retries_exhausted (run ${failed.runId})`,
    );
    expect(listed.stdout).toContain(
      "issue #9 · uncommitted changes · merged into main · no run recorded",
    );

    const json = await cli("worktrees", "--cwd", setup.repo.dir, "--json");
    const entries = JSON.parse(json.stdout) as { branch: string; runStatus?: string }[];
    expect(entries.map((entry) => entry.branch).sort()).toEqual([
      "closer/issue-3",
      "closer/issue-9",
    ]);

    const pruned = await cli("worktrees", "prune", "--cwd", setup.repo.dir);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain(
      `removed ${failed.worktree?.path} (closer/issue-3): no run holds it; branch kept (1 unmerged commit(s))`,
    );
    expect(pruned.stdout).toContain(
      `kept    ${dirty.path} (closer/issue-9): it has uncommitted changes (use --force to remove it)`,
    );
    expect(await exists(dirty.path)).toBe(true);

    const forced = await cli("worktrees", "prune", "--force", "--cwd", setup.repo.dir);
    expect(forced.stdout).toContain(`removed ${dirty.path} (closer/issue-9)`);
    expect(await exists(dirty.path)).toBe(false);
  });
});
