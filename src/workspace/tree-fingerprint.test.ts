import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../process/shell-command.js";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { isInsideGitRepository, readGit } from "./git.js";
import { readGitRepository } from "./git-place.js";
import {
  makeTreeFingerprintReader,
  parseStatusV2Paths,
  readTreeAndHead,
  readTreeFingerprint,
  type TreeFingerprintReader,
} from "./tree-fingerprint.js";

describe("parseStatusV2Paths", () => {
  it("reads changed, renamed (with the source), unmerged and untracked paths, spaces kept", () => {
    const hash = "0".repeat(40);
    const status = [
      `# branch.oid ${hash}`,
      "# branch.head main",
      `1 .M N... 100644 100644 100644 ${hash} ${hash} a file.txt`,
      `2 R. N... 100644 100644 100644 ${hash} ${hash} R100 new name.txt`,
      "old name.txt",
      `u UU N... 100644 100644 100644 100644 ${hash} ${hash} ${hash} both.txt`,
      "? notes/new.md",
      "",
    ].join("\0");
    expect(parseStatusV2Paths(status)).toEqual([
      "a file.txt",
      "new name.txt",
      "old name.txt",
      "both.txt",
      "notes/new.md",
    ]);
  });
});

describe("readTreeFingerprint in a repository", () => {
  let repo: FixtureRepo;
  beforeEach(async () => {
    repo = await makeFixtureRepo({
      files: { "README.md": "# demo\n", ".gitignore": "build/\n", "data.bin": "\u0000\u0001" },
    });
  });
  afterEach(async () => {
    await repo.cleanup();
  });
  const write = (file: string, text: string | Buffer) => writeFile(path.join(repo.dir, file), text);

  it("stays the same while nothing changes, ignored files included", async () => {
    const first = await readTreeFingerprint(repo.dir);
    await mkdir(path.join(repo.dir, "build"));
    await write("build/out.js", "generated\n");
    expect(await readTreeFingerprint(repo.dir)).toBe(first);
    expect(await readTreeFingerprint(path.join(repo.dir, "build"))).toBe(first);
  });

  it("changes with a tracked file, a binary file, an untracked file's content and a commit", async () => {
    const seen = new Set([await readTreeFingerprint(repo.dir)]);
    const record = async () => {
      const fingerprint = await readTreeFingerprint(repo.dir);
      expect(seen.has(fingerprint)).toBe(false);
      seen.add(fingerprint);
    };
    await write("README.md", "# changed\n");
    await record();
    await write("data.bin", Buffer.from([0, 2]));
    await record();
    await write("notes.txt", "one\n");
    await record();
    await write("notes.txt", "two\n"); // the status reads the same
    await record();
    await repo.commitAll("work");
    await record();
  });

  it("changes with the index, though the files and the status read the same", async () => {
    await write("README.md", "# staged once\n");
    await repo.git("add", "README.md");
    await write("README.md", "# in the tree\n");
    const before = await readTreeFingerprint(repo.dir);
    await write("README.md", "# staged twice\n");
    await repo.git("add", "README.md");
    await write("README.md", "# in the tree\n");
    expect(await readTreeFingerprint(repo.dir)).not.toBe(before);
  });

  it("reads HEAD's commit from the same `git status`, and the same fingerprint (docs/integrity.md#one-commit)", async () => {
    await write("notes.txt", "one\n");
    const found = await readGitRepository(repo.dir);
    if (found === undefined) throw new Error("the fixture is a repository");
    const read = await readTreeAndHead(found);
    expect(read.commit).toBe(await readGit(repo.dir, ["rev-parse", "HEAD"]));
    expect(read.fingerprint).toBe(await makeTreeFingerprintReader()(repo.dir, undefined, found));
    await repo.commitAll("work");
    expect((await readTreeAndHead(found)).commit).toBe(
      await readGit(repo.dir, ["rev-parse", "HEAD"]),
    );
  });

  it("works in a repository without a commit", async () => {
    const fresh = await realpath(await mkdtemp(path.join(tmpdir(), "closer-fingerprint-fresh-")));
    try {
      await runCommand({ command: ["git", "init", "-q"], cwd: fresh, timeoutMs: 10_000 });
      await writeFile(path.join(fresh, "a.txt"), "a\n");
      const before = await readTreeFingerprint(fresh);
      await writeFile(path.join(fresh, "a.txt"), "b\n");
      expect(await readTreeFingerprint(fresh)).not.toBe(before);
      const found = await readGitRepository(fresh);
      expect(found && (await readTreeAndHead(found)).commit).toBe("");
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });
});

describe("readTreeFingerprint asking git for the top once", () => {
  let repo: FixtureRepo;
  let bin: string;
  let savedPath: string | undefined;
  // One reader, as a run's integrity probe holds one.
  let readTreeFingerprint: TreeFingerprintReader;
  beforeEach(async () => {
    readTreeFingerprint = makeTreeFingerprintReader();
    repo = await makeFixtureRepo({ files: { "README.md": "# demo\n" } });
    // A git on PATH that logs its arguments, then runs the real one.
    bin = await realpath(await mkdtemp(path.join(tmpdir(), "closer-logging-git-")));
    const realGit = (
      await runCommand({ command: ["sh", "-c", "command -v git"], cwd: bin, timeoutMs: 10_000 })
    ).stdout.trim();
    await writeFile(
      path.join(bin, "git"),
      `#!/bin/sh\necho "$*" >> "${bin}/calls"\nexec "${realGit}" "$@"\n`,
      { mode: 0o755 },
    );
    savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath ?? ""}`;
  });
  afterEach(async () => {
    process.env.PATH = savedPath;
    await repo.cleanup();
    await rm(bin, { recursive: true, force: true });
  });
  const calls = async () => (await readFile(path.join(bin, "calls"), "utf8")).trim().split("\n");

  it("reads the status alone at the next declaration on the top of a repository", async () => {
    const first = await readTreeFingerprint(repo.dir);
    await writeFile(path.join(repo.dir, "README.md"), "# changed\n");
    expect(await readTreeFingerprint(repo.dir)).not.toBe(first);
    const made = await calls();
    expect(made.filter((line) => line.includes("--show-toplevel"))).toHaveLength(1);
    expect(made.filter((line) => line.includes(" status "))).toHaveLength(2);
  });

  it("reads the folder itself once its .git is gone", async () => {
    await readTreeFingerprint(repo.dir);
    await rm(path.join(repo.dir, ".git"), { recursive: true, force: true });
    const plain = await readTreeFingerprint(repo.dir);
    await writeFile(path.join(repo.dir, "README.md"), "# changed\n");
    expect(await readTreeFingerprint(repo.dir)).not.toBe(plain);
  });
});

describe("readTreeFingerprint outside git", () => {
  let folder: string;
  beforeEach(async () => {
    folder = await realpath(await mkdtemp(path.join(tmpdir(), "closer-fingerprint-")));
    await mkdir(path.join(folder, "src"));
    await writeFile(path.join(folder, "src", "a.txt"), "a\n");
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("reads the files under the folder, without node_modules", async () => {
    const first = await readTreeFingerprint(folder);
    expect(await readTreeFingerprint(folder)).toBe(first);
    await mkdir(path.join(folder, "node_modules"));
    await writeFile(path.join(folder, "node_modules", "dep.js"), "x\n");
    expect(await readTreeFingerprint(folder)).toBe(first);
    await writeFile(path.join(folder, "src", "a.txt"), "changed\n");
    const changed = await readTreeFingerprint(folder);
    expect(changed).not.toBe(first);
    await writeFile(path.join(folder, "src", "b.txt"), "");
    expect(await readTreeFingerprint(folder)).not.toBe(changed);
  });
});

describe("isInsideGitRepository", () => {
  it("tells a repository from a plain folder and a missing one", async () => {
    const repo = await makeFixtureRepo();
    const plain = await realpath(await mkdtemp(path.join(tmpdir(), "closer-plain-")));
    try {
      expect(await isInsideGitRepository(repo.dir)).toBe(true);
      expect(await isInsideGitRepository(plain)).toBe(false);
      expect(await isInsideGitRepository(path.join(plain, "gone"))).toBe(false);
    } finally {
      await repo.cleanup();
      await rm(plain, { recursive: true, force: true });
    }
  });
});
