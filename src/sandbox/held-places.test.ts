import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeHeldPlaces, removeMadePlaces } from "./held-places.js";

describe("the read-only places closer makes where they are missing", () => {
  let root: string;
  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), "closer-held-")));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("makes each missing folder and empty file with the folders on its way, and leaves what is there", async () => {
    const git = join(root, "repo/.git");
    await mkdir(join(git, "objects"), { recursive: true });
    await writeFile(join(git, "packed-refs"), "kept\n");
    const made = await makeHeldPlaces([
      { path: join(git, "objects/info/alternates"), make: "file" },
      { path: join(git, "refs/replace"), make: "folder" },
      { path: join(git, "packed-refs"), make: "file" },
      { path: join(git, "shallow") },
    ]);
    expect(made).toEqual([
      join(git, "objects/info"),
      join(git, "objects/info/alternates"),
      join(git, "refs"),
      join(git, "refs/replace"),
    ]);
    expect(await readFile(join(git, "objects/info/alternates"), "utf8")).toBe("");
    expect(await readFile(join(git, "packed-refs"), "utf8")).toBe("kept\n");
    expect(existsSync(join(git, "shallow"))).toBe(false);
  });

  it("removes what it made outside the git dir while it is still empty, and nothing in the git dir", async () => {
    const tree = join(root, "tree");
    const git = join(root, "repo/.git");
    await mkdir(tree);
    await mkdir(git, { recursive: true });
    const made = await makeHeldPlaces([
      { path: join(tree, ".agent/fixer"), make: "folder" },
      { path: join(tree, "other/held"), make: "folder" },
      { path: join(git, "hooks"), make: "folder" },
    ]);
    await writeFile(join(tree, "other/work.txt"), "the model's\n");

    await removeMadePlaces(made, git);

    expect(existsSync(join(tree, ".agent"))).toBe(false);
    expect(existsSync(join(tree, "other/held"))).toBe(false);
    expect(await readFile(join(tree, "other/work.txt"), "utf8")).toBe("the model's\n");
    expect(existsSync(join(git, "hooks"))).toBe(true);
  });
});
