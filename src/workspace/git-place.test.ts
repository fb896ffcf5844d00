import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { readGitPlace } from "./git-place.js";
import { getLocksDir, locksDirOf } from "./lock.js";

let repo: FixtureRepo;

beforeEach(async () => {
  repo = await makeFixtureRepo({ files: { "src/a.txt": "a\n" } });
});
afterEach(async () => {
  await repo.cleanup();
});

describe("readGitPlace", () => {
  it("names the common git dir of a folder inside the working tree", async () => {
    const place = await readGitPlace(path.join(repo.dir, "src"));
    expect(place).toEqual({ commonDir: path.join(repo.dir, ".git"), insideWorkTree: true });
  });

  it("names the main repository's git dir from a linked worktree", async () => {
    const linked = path.join(repo.dir, "..", `${path.basename(repo.dir)}-linked`);
    const added = await repo.git("worktree", "add", "-q", "-b", "side", linked);
    expect(added.exitCode).toBe(0);
    try {
      const place = await readGitPlace(linked);
      expect(place).toEqual({ commonDir: path.join(repo.dir, ".git"), insideWorkTree: true });
    } finally {
      await rm(linked, { recursive: true, force: true });
    }
  });

  it("says a git folder is in the repository but not in its working tree", async () => {
    const place = await readGitPlace(path.join(repo.dir, ".git"));
    expect(place).toEqual({ commonDir: path.join(repo.dir, ".git"), insideWorkTree: false });
  });

  it("says a folder outside any repository is outside git", async () => {
    const outside = await realpath(await mkdtemp(path.join(os.tmpdir(), "closer-no-git-")));
    try {
      await mkdir(path.join(outside, "inner"));
      expect(await readGitPlace(path.join(outside, "inner"))).toEqual({ insideWorkTree: false });
      expect(locksDirOf(outside, { insideWorkTree: false })).toBe(
        path.join(outside, ".closer", "locks"),
      );
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("puts the locks where getLocksDir finds them", async () => {
    const cwd = path.join(repo.dir, "src");
    expect(locksDirOf(cwd, await readGitPlace(cwd))).toBe(await getLocksDir(cwd));
    expect(await getLocksDir(cwd)).toBe(path.join(repo.dir, ".git", "closer", "locks"));
  });
});
