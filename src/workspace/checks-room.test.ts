import { execFileSync } from "node:child_process";
import { lstat, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ChecksRoom, openChecksRoom } from "./checks-room.js";
import { readGitRepository } from "./git-place.js";

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
}

/** Overwrites a loose object in place with other content, as a model with write access could. */
async function rewriteObject(top: string, id: string, content: string): Promise<void> {
  const file = join(top, ".git", "objects", id.slice(0, 2), id.slice(2));
  await rm(file, { force: true });
  await writeFile(file, deflateSync(Buffer.from(`blob ${content.length}\0${content}`)));
}

describe("openChecksRoom (docs/integrity.md#clean-room)", () => {
  let top: string;
  let room: ChecksRoom | undefined;

  beforeEach(async () => {
    top = await realpath(await mkdtemp(join(tmpdir(), "room-test-")));
    git(top, "init", "--quiet", "--initial-branch=main");
    git(top, "config", "user.email", "a@example.com");
    git(top, "config", "user.name", "a");
    await mkdir(join(top, "src"));
    await writeFile(join(top, "src", "a.txt"), "a\n");
    await writeFile(join(top, ".gitignore"), "node_modules/\n.env\nruns/\n");
    git(top, "add", "--all");
    git(top, "commit", "--quiet", "-m", "start");
    await mkdir(join(top, "node_modules", "dep"), { recursive: true });
    await writeFile(join(top, "node_modules", "dep", "index.js"), "module.exports = 1;\n");
    await writeFile(join(top, ".env"), "A=1\n");
    await mkdir(join(top, "runs"));
  });

  afterEach(async () => {
    await room?.remove();
    room = undefined;
    await rm(top, { recursive: true, force: true });
  });

  async function open(): Promise<ChecksRoom> {
    const repository = await readGitRepository(top);
    if (repository === undefined) throw new Error("no repository");
    room = await openChecksRoom({ repository, cwd: top, skipped: [join(top, "runs")] });
    return room;
  }

  it("keeps the ignored entries the tree holds when it opens, but closer's own folders", async () => {
    expect((await open()).kept).toEqual([".env", "node_modules"]);
  });

  it("holds the work as git shows it: changes and untracked files, the setup linked, the model's ignored files left out", async () => {
    const opened = await open();
    await writeFile(join(top, "src", "a.txt"), "changed\n");
    await writeFile(join(top, "new.txt"), "new\n");
    await writeFile(join(top, ".gitignore"), "node_modules/\n.env\nruns/\ncheat.log\n");
    await writeFile(join(top, "cheat.log"), "passed\n");

    const view = await opened.rebuild();

    expect(view.cwd.endsWith(`/${top.split("/").pop()}`)).toBe(true);
    expect(await readFile(join(view.cwd, "src", "a.txt"), "utf8")).toBe("changed\n");
    expect(await readFile(join(view.cwd, "node_modules", "dep", "index.js"), "utf8")).toContain(
      "module.exports",
    );
    expect(await lstat(join(view.cwd, "cheat.log")).catch(() => undefined)).toBeUndefined();
    expect(git(view.cwd, "status", "--porcelain")).toBe(
      " M .gitignore\n M src/a.txt\n?? new.txt".trim(),
    );
    expect(git(view.cwd, "rev-parse", "HEAD")).toBe(git(top, "rev-parse", "HEAD"));
    expect(git(top, "worktree", "list", "--porcelain")).not.toContain(view.cwd);
  });

  it("names what a check wrote, even a file written and put back, and puts the room back at the next rebuild", async () => {
    const opened = await open();
    const view = await opened.rebuild();
    expect(await view.readWrites()).toEqual([]);
    const file = join(view.cwd, "src", "a.txt");
    await writeFile(file, "tampered\n");
    await writeFile(file, "a\n");
    await writeFile(join(view.cwd, ".git"), "gitdir: /elsewhere\n");
    await writeFile(join(view.cwd, "out.txt"), "out\n");

    expect(await view.readWrites()).toEqual([".git", "out.txt", "src/a.txt"]);
    const again = await opened.rebuild();
    expect(await lstat(join(again.cwd, "out.txt")).catch(() => undefined)).toBeUndefined();
    expect(git(again.cwd, "status", "--porcelain")).toBe("");
    expect(await again.readWrites()).toEqual([]);
  });

  it("names a check that moves the room's own HEAD, which no listing of git's shows", async () => {
    const view = await (await open()).rebuild();
    const head = join(dirname(view.cwd), ".git-dir", "HEAD");
    await writeFile(head, "ref: refs/heads/main\n");

    expect(await view.readWrites()).toEqual([".git-dir/HEAD"]);
  });

  it("what a check writes among the ignored files is allowed, and gone at the next rebuild", async () => {
    const opened = await open();
    const view = await opened.rebuild();
    await writeFile(join(view.cwd, ".env.check"), "x\n");
    await writeFile(join(view.cwd, "node_modules", "added.js"), "x\n");
    await writeFile(join(view.cwd, ".gitignore"), "node_modules/\n.env\nruns/\n.env.check\n");

    expect(await view.readWrites()).toEqual([".gitignore"]);
    const again = await opened.rebuild();
    expect(await lstat(join(again.cwd, ".env.check")).catch(() => undefined)).toBeUndefined();
    expect(await lstat(join(again.cwd, "node_modules", "added.js")).catch(() => undefined)).toBe(
      undefined,
    );
    expect(await lstat(join(top, "node_modules", "added.js")).catch(() => undefined)).toBe(
      undefined,
    );
  });

  it("a file git must write from an object rewritten in place is not put in the room: the rebuild fails, naming it", async () => {
    const opened = await open();
    const view = await opened.rebuild();
    const id = git(top, "rev-parse", "HEAD:src/a.txt");
    await rewriteObject(top, id, "weakened\n");
    expect(git(top, "cat-file", "blob", id)).toBe("weakened");
    // A check removed the file: the next rebuild must write it again from the object.
    await rm(join(view.cwd, "src", "a.txt"));

    await expect(opened.rebuild()).rejects.toThrow(
      "objects of the repository no longer hold what their ids name: src/a.txt",
    );
  });
});
