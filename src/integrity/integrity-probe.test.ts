import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FixtureRepo, makeFixtureRepo } from "../testing/fixture-repo.js";
import { makeIntegrityProbe } from "./integrity-probe.js";

let repo: FixtureRepo;
let outside: string;
const standIns: FixtureRepo[] = [];

beforeEach(async () => {
  repo = await makeFixtureRepo({
    files: { "src/add.js": "return a - b;\n", "packages/app/index.js": "export {};\n" },
  });
  outside = await realpath(await mkdtemp(path.join(tmpdir(), "closer-probe-")));
});
afterEach(async () => {
  await repo.cleanup();
  await rm(outside, { recursive: true, force: true });
  for (const standIn of standIns.splice(0)) await standIn.cleanup();
});

/** A repository of the model's own, with a commit, that a `.git` file can point at. */
async function makeStandIn(): Promise<string> {
  const standIn = await makeFixtureRepo({ files: { "src/add.js": "return a + b;\n" } });
  standIns.push(standIn);
  return path.join(standIn.dir, ".git");
}

const probeOf = (workTree: string) =>
  makeIntegrityProbe({ workTree, globs: [], folders: [], packageScripts: [] });

describe("the integrity probe's git is the run's (docs/integrity.md#git-state)", () => {
  it("keeps to the worktree's repository when the model points the tree's .git file elsewhere", async () => {
    const tree = path.join(outside, "tree");
    await repo.git("worktree", "add", "--quiet", "-b", "work", tree);
    const probe = probeOf(tree);
    await probe.recordGitState(); // the run's start
    const start = await probe.readHeadCommit();
    expect(start).toMatch(/^[0-9a-f]{40}$/);
    await writeFile(path.join(tree, "src/add.js"), "return a * b;\n");
    const fingerprint = await probe.readTreeFingerprint();
    const standIn = await makeStandIn();

    await writeFile(path.join(tree, ".git"), `gitdir: ${standIn}\n`);

    expect(await probe.readHeadCommit()).toBe(start);
    expect(await probe.listDirtyFiles()).toEqual(["src/add.js"]);
    const changes = await probe.readChangesSince(start);
    expect(changes.files.map((file) => file.path)).toEqual(["src/add.js"]);
    expect(changes.files[0]?.diff).toContain("+return a * b;");
    expect(await probe.readTreeFingerprint()).toBe(fingerprint);
    expect(await probe.restoreGitState()).toEqual([]);
  });

  it("keeps to the repository when the model plants a .git in the folder the run works in", async () => {
    const folder = path.join(repo.dir, "packages/app");
    const probe = probeOf(folder);
    await probe.recordGitState();
    const start = await probe.readHeadCommit();
    await writeFile(path.join(folder, "index.js"), "export const app = 1;\n");
    const standIn = await makeStandIn();

    await writeFile(path.join(folder, ".git"), `gitdir: ${standIn}\n`);

    expect(await probe.readHeadCommit()).toBe(start);
    const dirty = await probe.listDirtyFiles();
    expect(dirty).toContain("packages/app/index.js");
    const changes = await probe.readChangesSince(start);
    expect(changes.files.find((file) => file.path === "packages/app/index.js")?.diff).toContain(
      "+export const app = 1;",
    );
  });
});
