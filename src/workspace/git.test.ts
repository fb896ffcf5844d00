import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isCloserError } from "../errors.js";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { listChangedFiles } from "./changed-files.js";
import {
  branchExists,
  commitAll,
  countCommitsAhead,
  getCurrentBranch,
  getGitCommonDir,
  getGitDirs,
  getRemoteUrl,
  getRepoRoot,
  isClean,
  mergeBranch,
  readGit,
  runGit,
} from "./git.js";
import { pushBranch } from "./git-push.js";

let repo: FixtureRepo;

beforeEach(async () => {
  repo = await makeFixtureRepo({ files: { "README.md": "# demo\n", "src/a.txt": "a\n" } });
});
afterEach(async () => {
  await repo.cleanup();
});

async function commitFile(cwd: string, file: string, text: string): Promise<void> {
  await writeFile(path.join(cwd, file), text);
  await commitAll(cwd, `change ${file}`);
}

describe("repository facts", () => {
  it("names the git dir and, in a linked worktree, the common git dir; none outside git", async () => {
    expect(await getGitDirs(path.join(repo.dir, "src"))).toEqual([path.join(repo.dir, ".git")]);
    const linked = path.join(repo.dir, "..", `${path.basename(repo.dir)}-linked`);
    await runGit(repo.dir, ["worktree", "add", "-q", "-b", "linked", linked]);
    try {
      expect(await getGitDirs(linked)).toEqual([
        path.join(repo.dir, ".git", "worktrees", path.basename(linked)),
        path.join(repo.dir, ".git"),
      ]);
    } finally {
      await rm(linked, { recursive: true, force: true });
    }
    const outside = await mkdtemp(path.join(tmpdir(), "closer-no-git-"));
    expect(await getGitDirs(outside)).toEqual([]);
    await rm(outside, { recursive: true, force: true });
  });

  it("finds the root, the common git dir and the current branch from a subfolder", async () => {
    const sub = path.join(repo.dir, "src");
    expect(await getRepoRoot(sub)).toBe(repo.dir);
    expect(await getGitCommonDir(sub)).toBe(path.join(repo.dir, ".git"));
    expect(await getCurrentBranch(sub)).toBe("main");
  });

  it("reports no branch when HEAD is detached", async () => {
    await repo.git("checkout", "--quiet", "--detach");
    expect(await getCurrentBranch(repo.dir)).toBeUndefined();
  });

  it("tells whether a branch exists", async () => {
    await repo.git("branch", "feature");
    expect(await branchExists(repo.dir, "feature")).toBe(true);
    expect(await branchExists(repo.dir, "nope")).toBe(false);
  });
});

describe("changes and commits", () => {
  it("sees modified, untracked and renamed files and commits them all", async () => {
    expect(await isClean(repo.dir)).toBe(true);
    await writeFile(path.join(repo.dir, "README.md"), "# changed\n");
    await writeFile(path.join(repo.dir, "new file.txt"), "new\n");
    await repo.git("mv", "src/a.txt", "src/b.txt");
    expect(await isClean(repo.dir)).toBe(false);
    expect((await listChangedFiles(repo.dir)).sort()).toEqual(
      ["README.md", "new file.txt", "src/b.txt"].sort(),
    );
    expect(await commitAll(repo.dir, "work")).toBe(true);
    expect(await isClean(repo.dir)).toBe(true);
    expect(await readGit(repo.dir, ["log", "-1", "--format=%s"])).toBe("work");
  });

  it("returns false when there is nothing to commit", async () => {
    expect(await commitAll(repo.dir, "nothing")).toBe(false);
    expect(await isClean(repo.dir)).toBe(true);
  });

  it("counts commits ahead of a base", async () => {
    await repo.git("switch", "--quiet", "-c", "feature");
    await commitFile(repo.dir, "one.txt", "1");
    await commitFile(repo.dir, "two.txt", "2");
    expect(await countCommitsAhead(repo.dir, "feature", "main")).toBe(2);
    expect(await countCommitsAhead(repo.dir, "main", "feature")).toBe(0);
  });
});

describe("merging", () => {
  it("fast-forwards when the base has not moved", async () => {
    await repo.git("switch", "--quiet", "-c", "feature");
    await commitFile(repo.dir, "one.txt", "1");
    await repo.git("switch", "--quiet", "main");
    expect(await mergeBranch(repo.dir, "feature")).toBe("fast-forward");
    expect(await readGit(repo.dir, ["rev-parse", "main"])).toBe(
      await readGit(repo.dir, ["rev-parse", "feature"]),
    );
    expect(await mergeBranch(repo.dir, "feature")).toBe("up-to-date");
  });

  it("makes a merge commit when both sides moved", async () => {
    await repo.git("switch", "--quiet", "-c", "feature");
    await commitFile(repo.dir, "one.txt", "1");
    await repo.git("switch", "--quiet", "main");
    await commitFile(repo.dir, "two.txt", "2");
    expect(await mergeBranch(repo.dir, "feature")).toBe("merge-commit");
    const parents = await readGit(repo.dir, ["log", "-1", "--format=%P"]);
    expect(parents.split(" ")).toHaveLength(2);
  });

  it("aborts a conflicting merge and leaves the tree clean", async () => {
    await repo.git("switch", "--quiet", "-c", "feature");
    await commitFile(repo.dir, "README.md", "feature side\n");
    await repo.git("switch", "--quiet", "main");
    await commitFile(repo.dir, "README.md", "main side\n");
    expect(await mergeBranch(repo.dir, "feature")).toBe("conflict");
    expect(await isClean(repo.dir)).toBe(true);
  });
});

describe("remotes", () => {
  let remoteDir: string;
  beforeEach(async () => {
    remoteDir = await realpath(await mkdtemp(path.join(tmpdir(), "closer-remote-")));
    await runGit(remoteDir, ["init", "--quiet", "--bare"]);
  });
  afterEach(async () => {
    await rm(remoteDir, { recursive: true, force: true });
  });

  it("reads the origin URL and pushes a branch", async () => {
    expect(await getRemoteUrl(repo.dir)).toBeUndefined();
    await repo.git("remote", "add", "origin", remoteDir);
    expect(await getRemoteUrl(repo.dir)).toBe(remoteDir);
    await repo.git("switch", "--quiet", "-c", "feature");
    await commitFile(repo.dir, "one.txt", "1");
    await pushBranch(repo.dir, "feature");
    expect(await readGit(remoteDir, ["rev-parse", "feature"])).toBe(
      await readGit(repo.dir, ["rev-parse", "feature"]),
    );
  });
});

describe("errors", () => {
  it("throws workspace_error with the command and stderr in the detail", async () => {
    const error = await runGit(repo.dir, ["switch", "no-such-branch"]).catch((caught) => caught);
    expect(isCloserError(error)).toBe(true);
    expect(error.code).toBe("workspace_error");
    expect(error.message).toContain("git switch failed");
    expect(error.fields.detail).toContain("git switch no-such-branch");
    expect(error.fields.detail).toContain("no-such-branch");
  });

  it("names the fix outside a repository", async () => {
    const outside = await mkdtemp(path.join(tmpdir(), "closer-outside-"));
    try {
      const error = await getRepoRoot(outside).catch((caught) => caught);
      expect(error.code).toBe("workspace_error");
      expect(error.fields.fix).toMatch(/git repository/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
