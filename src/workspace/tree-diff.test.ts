import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { commitAll, runGit } from "./git.js";
import { readGitRepository } from "./git-place.js";
import { makeTreeDiffReader } from "./tree-diff.js";

let repo: FixtureRepo;

beforeEach(async () => {
  repo = await makeFixtureRepo({
    files: { "src/add.js": "return a - b;\n", ".gitignore": "build/\n" },
  });
});
afterEach(async () => {
  await repo.cleanup();
});

function reader() {
  return makeTreeDiffReader(() => readGitRepository(repo.dir));
}

describe("docs/record.md#diffs: makeTreeDiffReader", () => {
  it("diffs each read against the tree the last one kept: changed, committed, untracked; never ignored", async () => {
    const diffs = reader();
    await diffs.keep();
    await writeFile(path.join(repo.dir, "src/add.js"), "return a + b;\n");
    await commitAll(repo.dir, "fix");
    await writeFile(path.join(repo.dir, "notes.md"), "new\n");
    await runGit(repo.dir, ["update-index", "--assume-unchanged", ".gitignore"]);
    await writeFile(path.join(repo.dir, ".gitignore"), "build/\ndist/\n");
    await writeFile(path.join(repo.dir, "build.log"), "x\n");
    await rm(path.join(repo.dir, "build.log"));

    const first = await diffs.readSinceKept();
    expect(first.kind).toBe("diff");
    const text = first.kind === "diff" ? first.diff : "";
    expect(text).toContain("diff --git a/src/add.js b/src/add.js");
    expect(text).toContain("+return a + b;");
    expect(text).toContain("diff --git a/notes.md b/notes.md");
    // The model's index flags hide nothing: closer's own index reads the file.
    expect(text).toContain("+dist/");

    await writeFile(path.join(repo.dir, "notes.md"), "new\nmore\n");
    const second = await diffs.readSinceKept();
    const again = second.kind === "diff" ? second.diff : "";
    expect(again).toContain("+more");
    expect(again).not.toContain("src/add.js");

    expect(await diffs.readSinceKept()).toEqual({ kind: "diff", diff: "" });
  });

  it("takes a tree written of the work already (the clean room's) as the end, and starts the next diff there", async () => {
    const diffs = reader();
    await diffs.keep();
    await writeFile(path.join(repo.dir, "src/add.js"), "return a + b;\n");
    await runGit(repo.dir, ["add", "src/add.js"]);
    const written = (await runGit(repo.dir, ["write-tree"])).stdout.trim();
    // Changed after that tree was written: not in this iteration's diff, in the next one's.
    await writeFile(path.join(repo.dir, "late.md"), "late\n");

    const read = await diffs.readSinceKept(written);
    const text = read.kind === "diff" ? read.diff : "";
    expect(text).toContain("+return a + b;");
    expect(text).not.toContain("late.md");
    const next = await diffs.readSinceKept();
    const nextText = next.kind === "diff" ? next.diff : "";
    expect(nextText).toContain("+late");
    expect(nextText).not.toContain("src/add.js");
  });

  it("leaves out what git ignores, and says when no tree was kept before", async () => {
    const diffs = reader();
    expect((await diffs.readSinceKept()).kind).toBe("no-start");
    await writeFile(path.join(repo.dir, "build.txt"), "ok\n");
    await mkdir(path.join(repo.dir, "build"));
    await writeFile(path.join(repo.dir, "build/out.js"), "ignored\n");
    const read = await diffs.readSinceKept();
    const text = read.kind === "diff" ? read.diff : "";
    expect(text).toContain("+ok");
    expect(text).not.toContain("out.js");
  });

  it("reads nothing outside git", async () => {
    const diffs = makeTreeDiffReader(async () => undefined);
    await diffs.keep();
    expect(await diffs.readSinceKept()).toEqual({ kind: "no-git" });
  });
});
