import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FixtureRepo, makeFixtureRepo } from "../testing/index.js";
import { removeLeftStandIns } from "./stand-ins.js";

describe("removeLeftStandIns", () => {
  let repo: FixtureRepo | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  it("removes the empty, untracked guarded names and keeps tracked, non-empty and other files", async () => {
    repo = await makeFixtureRepo({ files: { ".mcp.json": "", "README.md": "# project\n" } });
    const dir = repo.dir;
    await writeFile(join(dir, ".bashrc"), "");
    await writeFile(join(dir, ".gitconfig"), "");
    await writeFile(join(dir, ".profile"), "export A=1\n");
    await writeFile(join(dir, "empty.txt"), "");
    await mkdir(join(dir, ".claude"));
    await mkdir(join(dir, ".vscode"));
    await writeFile(join(dir, ".vscode/settings.json"), "{}");

    const removed = await removeLeftStandIns(dir, dir);

    expect(removed.sort()).toEqual([".bashrc", ".claude", ".gitconfig"]);
    for (const kept of [".mcp.json", ".profile", "empty.txt", ".vscode/settings.json"])
      expect(existsSync(join(dir, kept)), kept).toBe(true);
    expect(existsSync(join(dir, ".bashrc"))).toBe(false);
  });

  it("looks nowhere outside the tree", async () => {
    repo = await makeFixtureRepo();
    const outside = await makeFixtureRepo();
    try {
      await writeFile(join(outside.dir, ".bashrc"), "");
      expect(await removeLeftStandIns(repo.dir, outside.dir)).toEqual([]);
      expect(existsSync(join(outside.dir, ".bashrc"))).toBe(true);
    } finally {
      await outside.cleanup();
    }
  });
});
