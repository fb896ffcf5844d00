import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { deflateSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../process/shell-command.js";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import {
  readChangesBetween,
  readChangesSince,
  readHeadCommit,
  splitDiff,
} from "./changes-since.js";
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

describe("readChangesSince reads the files as they are (docs/integrity.md#git-state)", () => {
  let outside: string;
  beforeEach(async () => {
    outside = await mkdtemp(path.join(tmpdir(), "closer-diff-programs-"));
  });
  afterEach(async () => {
    await rm(outside, { recursive: true, force: true });
    delete process.env.GIT_EXTERNAL_DIFF;
  });

  const diffOf = (changes: { files: readonly { path: string; diff: string }[] }, file: string) =>
    changes.files.find((change) => change.path === file)?.diff ?? "";

  it("diffs against the baseline commit itself, not a replacement refs/replace/ puts in its place", async () => {
    const start = await readHeadCommit(repo.dir);
    await writeFile(path.join(repo.dir, "src/add.js"), "return a + b;\n");
    await commitAll(repo.dir, "fix");
    // A commit with today's tree standing in for the baseline: git diff <baseline> shows nothing.
    const tree = (await repo.git("rev-parse", "HEAD^{tree}")).stdout.trim();
    const standIn = (await repo.git("commit-tree", tree, "-m", "stand-in")).stdout.trim();
    expect((await repo.git("replace", start, standIn)).exitCode).toBe(0);
    expect((await repo.git("diff", start)).stdout).toBe("");

    const changes = await readChangesSince(repo.dir, start);

    expect(changes.files.map((file) => file.path)).toEqual(["src/add.js"]);
    expect(diffOf(changes, "src/add.js")).toContain("+return a + b;");
    expect(changes.stat).toContain("src/add.js");
  });

  it("shows a file an attributes file calls binary as text, and a binary file as binary", async () => {
    await writeFile(path.join(repo.dir, "image.bin"), Buffer.from([0x89, 0, 1, 2, 0, 255]));
    await commitAll(repo.dir, "an image");
    const start = await readHeadCommit(repo.dir);
    await writeFile(path.join(repo.dir, ".gitattributes"), "test/*.js binary\nnotes/* -diff\n");
    await writeFile(path.join(repo.dir, "test/add.test.js"), "expect(add(2, 3)).toBe(-1);\n");
    await mkdir(path.join(repo.dir, "notes"));
    await writeFile(path.join(repo.dir, "notes/todo.txt"), "skip the failing test\n");
    await writeFile(path.join(repo.dir, "image.bin"), Buffer.from([0x89, 0, 3, 4, 0, 255]));
    await writeFile(path.join(repo.dir, "new.bin"), Buffer.from([0, 1, 0, 2]));

    const changes = await readChangesSince(repo.dir, start);

    const test = diffOf(changes, "test/add.test.js");
    expect(test).toContain("-expect(add(2, 3)).toBe(5);");
    expect(test).toContain("+expect(add(2, 3)).toBe(-1);");
    expect(test).not.toContain("Binary files");
    expect(diffOf(changes, "notes/todo.txt")).toContain("+skip the failing test");
    expect(diffOf(changes, "image.bin")).toContain(
      "Binary files a/image.bin and b/image.bin differ",
    );
    expect(diffOf(changes, "new.bin")).toContain("Binary files /dev/null and b/new.bin differ");
  });

  it("runs no diff program or textconv that the repository or the environment names", async () => {
    const marker = path.join(outside, "ran.log");
    const program = path.join(outside, "program");
    await writeFile(program, `#!/bin/sh\necho "$0" >> "${marker}"\necho "nothing changed"\n`);
    await chmod(program, 0o755);
    await repo.git("config", "diff.external", program);
    await repo.git("config", "diff.shown.textconv", program);
    await repo.git("config", "diff.shown.command", program);
    await writeFile(path.join(repo.dir, ".git/info/attributes"), "*.js diff=shown\n");
    process.env.GIT_EXTERNAL_DIFF = program;
    const start = await readHeadCommit(repo.dir);
    await writeFile(path.join(repo.dir, "src/add.js"), "return a + b;\n");
    await writeFile(path.join(repo.dir, "src/sub.js"), "return a - b;\n");

    const changes = await readChangesSince(repo.dir, start);

    expect(diffOf(changes, "src/add.js")).toContain("+return a + b;");
    expect(diffOf(changes, "src/sub.js")).toContain("+return a - b;");
    expect(JSON.stringify(changes)).not.toContain("nothing changed");
    await commitAll(repo.dir, "with a diff program set");
    expect(await readFile(marker, "utf8").catch(() => "")).toBe("");
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

describe("readChangesBetween (docs/integrity.md#clean-room)", () => {
  async function treeOfWork(): Promise<string> {
    const index = path.join(repo.dir, ".git", "closer-test-index");
    const env = { ...process.env, GIT_INDEX_FILE: index } as Record<string, string>;
    const run = (args: string[]) =>
      runCommand({ command: ["git", ...args], cwd: repo.dir, env, timeoutMs: 10_000 });
    await run(["read-tree", "HEAD"]);
    await run(["add", "--all"]);
    return (await run(["write-tree"])).stdout.trim();
  }

  it("diffs the commit against the tree closer wrote, untracked files included, an attributes file's binary shown as text", async () => {
    const start = await readHeadCommit(repo.dir);
    await writeFile(path.join(repo.dir, ".gitattributes"), "*.js -diff\n");
    await writeFile(path.join(repo.dir, "test/add.test.js"), "expect(add(2, 3)).toBe(-1);\n");
    await writeFile(path.join(repo.dir, "notes.md"), "notes\n");

    const changes = await readChangesBetween(repo.dir, { commit: start, tree: await treeOfWork() });

    expect(changes.files.map((file) => file.path).sort()).toEqual([
      ".gitattributes",
      "notes.md",
      "test/add.test.js",
    ]);
    const test = changes.files.find((file) => file.path === "test/add.test.js");
    expect(test?.diff).toContain("+expect(add(2, 3)).toBe(-1);");
  });

  it("refuses a diff whose baseline object was rewritten in place to match the weakened test", async () => {
    const start = await readHeadCommit(repo.dir);
    const weakened = "expect(add(2, 3)).toBe(-1);\n";
    await writeFile(path.join(repo.dir, "test/add.test.js"), weakened);
    const tree = await treeOfWork();
    const id = (
      await runCommand({
        command: ["git", "rev-parse", `${start}:test/add.test.js`],
        cwd: repo.dir,
        timeoutMs: 10_000,
      })
    ).stdout.trim();
    const object = path.join(repo.dir, ".git", "objects", id.slice(0, 2), id.slice(2));
    await chmod(object, 0o644);
    await writeFile(object, deflateSync(Buffer.from(`blob ${weakened.length}\0${weakened}`)));

    await expect(readChangesBetween(repo.dir, { commit: start, tree })).rejects.toThrow(
      `objects of the repository no longer hold what their ids name: test/add.test.js (${id})`,
    );
  });
});
