import { execFileSync } from "node:child_process";
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { commitAll, runGit } from "./git.js";
import { pushBranch } from "./git-push.js";
import {
  compareGitState,
  recordGitState,
  restoreGitState,
  splitBranchSections,
} from "./git-state.js";

let repo: FixtureRepo;
let gitDir: string;

beforeEach(async () => {
  repo = await makeFixtureRepo({ files: { "README.md": "# demo\n" } });
  gitDir = path.join(repo.dir, ".git");
});
afterEach(async () => {
  await repo.cleanup();
});

/** A hook script that appends its name to `marker` (and the environment's tokens, if any). */
async function plantHook(file: string, marker: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(
    file,
    `#!/bin/sh\necho "$(basename "$0") token=\${GITHUB_TOKEN:-none}" >> "${marker}"\n`,
  );
  await chmod(file, 0o755);
}

async function readMarker(marker: string): Promise<string> {
  return readFile(marker, "utf8").catch(() => "");
}

describe("the git state (docs/integrity.md#git-state)", () => {
  it("finds a planted core.hooksPath, hook and include, and puts everything back", async () => {
    const record = await recordGitState(gitDir);
    const marker = path.join(repo.dir, "..", `marker-${path.basename(repo.dir)}`);
    const planted = path.join(repo.dir, "planted-hooks");
    await plantHook(path.join(planted, "post-commit"), marker);
    await runGit(repo.dir, ["config", "core.hooksPath", planted]);
    await plantHook(path.join(gitDir, "hooks/post-merge"), marker);
    await writeFile(path.join(gitDir, "info/attributes"), "* diff=evil\n");
    const changes = await compareGitState(record);
    expect(changes).toEqual([
      { path: "config", how: "changed" },
      { path: "hooks/post-merge", how: "added" },
      { path: "info/attributes", how: "added" },
    ]);
    await restoreGitState(record, changes);
    expect(await compareGitState(record)).toEqual([]);
    await writeFile(path.join(repo.dir, "new.txt"), "new\n");
    await commitAll(repo.dir, "after the restore");
    expect(await readMarker(marker)).toBe("");
  });

  it("puts back a hook the user had, with its mode, when the model rewrote or removed it", async () => {
    const marker = path.join(repo.dir, "..", `user-${path.basename(repo.dir)}`);
    const hook = path.join(gitDir, "hooks/post-commit");
    await plantHook(hook, marker);
    const record = await recordGitState(gitDir);
    await writeFile(hook, "#!/bin/sh\necho model >> /dev/null\n");
    await chmod(hook, 0o644);
    await restoreGitState(record, await compareGitState(record));
    expect((await stat(hook)).mode & 0o777).toBe(0o755);
    await writeFile(path.join(repo.dir, "new.txt"), "new\n");
    await repo.commitAll("the user's hook runs in the user's git");
    expect(await readMarker(marker)).toBe("post-commit token=none\n");
  });

  it("finds a file rewritten to the same size with its times set back, though it reads unchanged files once", async () => {
    const hook = path.join(gitDir, "hooks/pre-push");
    await writeFile(hook, "#!/bin/sh\nexit 0\n");
    await writeFile(path.join(gitDir, "info/exclude"), "scratch/\n");
    // Every file counts as settled, so each is compared by its identity first.
    const record = await recordGitState(gitDir, gitDir, () => Number.POSITIVE_INFINITY);
    expect(await compareGitState(record)).toEqual([]);
    // Its times to the nanosecond, kept on another file and set back after the write.
    const times = path.join(repo.dir, "..", `times-${path.basename(repo.dir)}`);
    execFileSync("touch", ["-r", hook, times]);
    await writeFile(hook, "#!/bin/sh\nexit 1\n");
    execFileSync("touch", ["-r", times, hook]);
    expect((await stat(hook, { bigint: true })).mtimeNs).toBe(
      (await stat(times, { bigint: true })).mtimeNs,
    );
    await writeFile(path.join(gitDir, "info/exclude"), "secret/\n");
    expect(await compareGitState(record)).toEqual([
      { path: "hooks/pre-push", how: "changed" },
      { path: "info/exclude", how: "changed" },
    ]);
  });
});

describe("the layout files (docs/integrity.md#git-state)", () => {
  it("finds a replacement ref, loose or packed, an alternates and a shallow file, and puts them back", async () => {
    await repo.git("pack-refs", "--all");
    const record = await recordGitState(gitDir);
    const head = (await repo.git("rev-parse", "HEAD")).stdout.trim();
    const tree = (await repo.git("rev-parse", "HEAD^{tree}")).stdout.trim();
    const standIn = (await repo.git("commit-tree", tree, "-m", "stand-in")).stdout.trim();
    await repo.git("replace", head, standIn);
    await writeFile(path.join(gitDir, "objects/info/alternates"), "/elsewhere/objects\n");
    await writeFile(path.join(gitDir, "shallow"), `${head}\n`);
    expect(await compareGitState(record)).toEqual([
      { path: "objects/info/alternates", how: "added" },
      { path: `refs/replace/${head}`, how: "added" },
      { path: "shallow", how: "added" },
    ]);
    await repo.git("pack-refs", "--all");
    const changes = await compareGitState(record);
    expect(changes).toContainEqual({ path: "packed-refs", how: "changed" });
    await restoreGitState(record, changes);
    expect(await compareGitState(record)).toEqual([]);
    expect((await repo.git("replace", "--list")).stdout).toBe("");
    expect((await repo.git("rev-parse", "main")).stdout.trim()).toBe(head);
  });

  it("leave the packed branches and tags to git and the model: packing, adding and deleting them is no change", async () => {
    await repo.git("tag", "v1");
    await repo.git("pack-refs", "--all");
    const record = await recordGitState(gitDir);
    await writeFile(path.join(repo.dir, "new.txt"), "new\n");
    await commitAll(repo.dir, "work");
    await repo.git("branch", "side");
    await repo.git("tag", "-d", "v1");
    await repo.git("pack-refs", "--all");
    expect(await compareGitState(record)).toEqual([]);
  });

  it("finds a linked worktree's gitdir and commondir pointed elsewhere, and puts them back", async () => {
    const worktree = path.join(repo.dir, "..", `tree-${path.basename(repo.dir)}`);
    await repo.git("worktree", "add", "--quiet", "-b", "work", worktree);
    try {
      const admin = path.join(gitDir, "worktrees", path.basename(worktree));
      const record = await recordGitState(gitDir, admin);
      const gitdir = await readFile(path.join(admin, "gitdir"), "utf8");
      await writeFile(path.join(admin, "gitdir"), "/elsewhere/.git\n");
      await writeFile(path.join(admin, "commondir"), "/elsewhere\n");
      const name = `worktrees/${path.basename(worktree)}`;
      const changes = await compareGitState(record);
      expect(changes).toEqual([
        { path: `${name}/commondir`, how: "changed" },
        { path: `${name}/gitdir`, how: "changed" },
      ]);
      await restoreGitState(record, changes);
      expect(await readFile(path.join(admin, "gitdir"), "utf8")).toBe(gitdir);
      expect((await repo.git("-C", worktree, "rev-parse", "--git-common-dir")).stdout.trim()).toBe(
        gitDir,
      );
    } finally {
      await repo.git("worktree", "remove", "--force", worktree);
    }
  });
});

describe("closer's git environment", () => {
  const saved = process.env.GITHUB_TOKEN;
  afterEach(() => {
    if (saved === undefined) delete process.env.GITHUB_TOKEN;
    else process.env.GITHUB_TOKEN = saved;
  });

  it("runs no hook at all, so none sees closer's GitHub token (docs/worktrees-and-github.md#git-hooks)", async () => {
    process.env.GITHUB_TOKEN = "ghp_secret";
    const marker = path.join(repo.dir, "..", `env-${path.basename(repo.dir)}`);
    await plantHook(path.join(gitDir, "hooks/post-commit"), marker);
    await writeFile(path.join(repo.dir, "new.txt"), "new\n");
    await commitAll(repo.dir, "a commit");
    expect(await readMarker(marker)).toBe("");
  });

  it("runs no core.fsmonitor program", async () => {
    const marker = path.join(repo.dir, "..", `fsmonitor-${path.basename(repo.dir)}`);
    await plantHook(path.join(repo.dir, "..", `monitor-${path.basename(repo.dir)}`), marker);
    await runGit(repo.dir, [
      "config",
      "core.fsmonitor",
      path.join(repo.dir, "..", `monitor-${path.basename(repo.dir)}`),
    ]);
    await writeFile(path.join(repo.dir, "new.txt"), "new\n");
    await commitAll(repo.dir, "a commit");
    expect(await readMarker(marker)).toBe("");
  });

  it("gives a push the token for that one command, through a credential helper", async () => {
    const seen: string[] = [];
    const server = createServer((request, response) => {
      seen.push(request.headers.authorization ?? "");
      if (request.headers.authorization === undefined) {
        response.writeHead(401, { "WWW-Authenticate": 'Basic realm="test"' });
      } else {
        response.writeHead(403);
      }
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await runGit(repo.dir, ["remote", "add", "origin", `http://127.0.0.1:${port}/o/r.git`]);
      const failed = await pushBranch(repo.dir, "main", "origin", { token: "ghp_push" }).catch(
        (e) => e,
      );
      expect(failed).toBeInstanceOf(Error); // the server refuses every push
      const expected = `Basic ${Buffer.from("x-access-token:ghp_push").toString("base64")}`;
      expect(seen).toContain(expected);
      expect(await readFile(path.join(gitDir, "config"), "utf8")).not.toContain("ghp_push");
    } finally {
      server.close();
    }
  });

  it("counts an empty config.worktree as none, and one with settings as added", async () => {
    const record = await recordGitState(gitDir);
    await writeFile(path.join(gitDir, "config.worktree"), "");
    expect(await compareGitState(record)).toEqual([]);
    await writeFile(path.join(gitDir, "config.worktree"), "[core]\n\thooksPath = /elsewhere\n");
    expect(await compareGitState(record)).toEqual([{ path: "config.worktree", how: "added" }]);
  });
});

describe("branch sections of the shared config", () => {
  it("are git's own bookkeeping: an upstream set beside the run is no change, and is kept by a restore", async () => {
    const record = await recordGitState(gitDir);
    await runGit(repo.dir, ["config", "branch.main.remote", "origin"]);
    expect(await compareGitState(record)).toEqual([]);
    await runGit(repo.dir, ["config", "core.hooksPath", "/tmp/elsewhere"]);
    const changes = await compareGitState(record);
    expect(changes).toEqual([{ path: "config", how: "changed" }]);
    await restoreGitState(record, changes);
    const config = await readFile(path.join(gitDir, "config"), "utf8");
    expect(config).not.toContain("hooksPath");
    expect(config).toContain('[branch "main"]\n\tremote = origin');
    expect(await compareGitState(record)).toEqual([]);
  });

  it("do not hide a section that follows a branch header on its line", () => {
    const text =
      '[core]\n\tbare = false\n[branch "x"]\n\tremote = o\n[branch "y"] [include]\n\tpath = /evil\n';
    const { rest, branches } = splitBranchSections(text);
    expect(branches).toBe('[branch "x"]\n\tremote = o');
    expect(rest).toContain("path = /evil");
  });
});
