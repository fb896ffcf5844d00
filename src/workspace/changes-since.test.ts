import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../process/shell-command.js";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { readChangesSince, readHeadCommit, splitDiff } from "./changes-since.js";
import { commitAll } from "./git.js";

let repo: FixtureRepo;

beforeEach(async () => {
  repo = await makeFixtureRepo({
    files: { "src/add.js": "return a - b;\n", "test/add.test.js": "expect(add(2, 3)).toBe(5);\n" },
  });
});
afterEach(async () => {
  await repo.cleanup();
});

describe("readChangesSince", () => {
  it("diffs committed, uncommitted and untracked changes since the commit", async () => {
    const start = await readHeadCommit(repo.dir);
    expect(start).toMatch(/^[0-9a-f]{40}$/);
    await writeFile(path.join(repo.dir, "src/add.js"), "return a + b;\n");
    await commitAll(repo.dir, "fix");
    await writeFile(path.join(repo.dir, "test/add.test.js"), "expect(add(2, 3)).toBe(-1);\n");
    await mkdir(path.join(repo.dir, "docs"));
    await writeFile(path.join(repo.dir, "docs/new file.md"), "notes\n");

    const changes = await readChangesSince(repo.dir, start);

    expect(changes.files.map((file) => file.path).sort()).toEqual([
      "docs/new file.md",
      "src/add.js",
      "test/add.test.js",
    ]);
    const test = changes.files.find((file) => file.path === "test/add.test.js");
    expect(test?.diff).toContain("-expect(add(2, 3)).toBe(5);");
    expect(test?.diff).toContain("+expect(add(2, 3)).toBe(-1);");
    expect(changes.files.find((file) => file.path === "docs/new file.md")?.diff).toContain(
      "+notes",
    );
    expect(changes.stat).toContain("src/add.js");
    expect(changes.stat).toContain("docs/new file.md (untracked)");
  });

  it("finds nothing without a commit or outside git", async () => {
    expect(await readChangesSince(repo.dir, "")).toEqual({ stat: "", files: [] });
    const plain = await mkdtemp(path.join(tmpdir(), "closer-plain-"));
    try {
      expect(await readHeadCommit(plain)).toBe("");
      expect(await readChangesSince(plain, "abc")).toEqual({ stat: "", files: [] });
      await runCommand({ command: ["git", "init", "-q"], cwd: plain, timeoutMs: 10_000 });
      expect(await readHeadCommit(plain)).toBe("");
      // Inside the git folder, HEAD resolves but there is no working tree.
      expect(await readHeadCommit(path.join(repo.dir, ".git"))).toBe("");
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });
});

describe("splitDiff", () => {
  it("names each file of a diff, spaces included", () => {
    const diff = [
      "diff --git a/a b.txt b/a b.txt",
      "--- a/a b.txt",
      "+++ b/a b.txt",
      "@@ -1 +1 @@",
      "-x",
      "+y",
      "diff --git a/c.js b/c.js",
      "deleted file mode 100644",
    ].join("\n");
    expect(splitDiff(diff).map((file) => file.path)).toEqual(["a b.txt", "c.js"]);
  });
});
