import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EVENT_FORMAT_VERSION } from "../ports/events.js";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { createRunRecord } from "./run-record.js";
import { defaultRunsDir } from "./runs-dir.js";

describe("defaultRunsDir", () => {
  let repo: FixtureRepo;
  beforeEach(async () => {
    repo = await makeFixtureRepo({ files: { "src/index.js": "export {};\n" } });
  });
  afterEach(async () => {
    await repo.cleanup();
  });

  it("puts runs under the git folder of the repository, from any folder inside it", () => {
    expect(defaultRunsDir(repo.dir)).toBe(join(repo.dir, ".git", "closer", "runs"));
    expect(defaultRunsDir(join(repo.dir, "src"))).toBe(join(repo.dir, ".git", "closer", "runs"));
  });

  it("puts the runs of a linked worktree under the shared git folder", async () => {
    const worktree = `${repo.dir}-worktree`;
    const added = await repo.git("worktree", "add", "--quiet", "-b", "topic", worktree);
    expect(added.exitCode).toBe(0);
    try {
      expect(defaultRunsDir(worktree)).toBe(join(repo.dir, ".git", "closer", "runs"));
    } finally {
      await rm(worktree, { recursive: true, force: true });
    }
  });

  it("never makes the working tree dirty", async () => {
    const record = createRunRecord(join(defaultRunsDir(repo.dir), "run-1"), { env: {} });
    await record.emit({
      v: EVENT_FORMAT_VERSION,
      at: 1,
      runId: "run-1",
      type: "warning",
      message: "x",
    });
    await record.savePrompt(1, "prompt");
    expect((await repo.git("status", "--porcelain")).stdout).toBe("");
  });
});

describe("defaultRunsDir outside git", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), "closer-nogit-")));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("falls back to .closer/runs in the folder", () => {
    expect(defaultRunsDir(dir)).toBe(join(dir, ".closer", "runs"));
  });

  it("follows a gitdir file with a relative commondir", async () => {
    await mkdir(join(dir, "main", ".git", "worktrees", "side"), { recursive: true });
    await writeFile(join(dir, "main", ".git", "worktrees", "side", "commondir"), "../..\n");
    await mkdir(join(dir, "side"));
    await writeFile(join(dir, "side", ".git"), "gitdir: ../main/.git/worktrees/side\n");
    expect(defaultRunsDir(join(dir, "side"))).toBe(join(dir, "main", ".git", "closer", "runs"));
  });
});
