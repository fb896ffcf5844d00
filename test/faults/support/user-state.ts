import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { expect } from "vitest";
import { git } from "../../run/support/issue-repo.js";

/** What the user had before a run: the files of the working tree, the branches, the git configuration. */
export interface UserState {
  readonly files: Readonly<Record<string, string>>;
  readonly refs: string;
  readonly gitConfig: string;
}

async function hashFiles(root: string, dir: string, into: Record<string, string>): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.name === ".git") continue;
    if (entry.isDirectory()) await hashFiles(root, path, into);
    else if (entry.isFile()) {
      into[relative(root, path)] = createHash("sha256")
        .update(await readFile(path))
        .digest("hex");
    }
  }
}

/** Takes the user's state of a repository (files outside `.git`, refs, `.git/config`). */
export async function takeUserState(dir: string): Promise<UserState> {
  const files: Record<string, string> = {};
  await hashFiles(dir, dir, files);
  return {
    files,
    refs: await git(dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads"),
    gitConfig: await readFile(join(dir, ".git/config"), "utf8"),
  };
}

/**
 * Asserts that nothing the user had is lost: every file is there with its
 * content (new files may be added, e.g. by a merged run), every branch still
 * points where it did unless `movedBranches` names it, and `.git/config` is
 * unchanged.
 */
export async function expectUserStateKept(
  dir: string,
  before: UserState,
  options: { movedBranches?: readonly string[] } = {},
): Promise<void> {
  const after = await takeUserState(dir);
  for (const [file, hash] of Object.entries(before.files)) {
    expect(after.files[file], `${file} is kept`).toBe(hash);
  }
  const moved = new Set((options.movedBranches ?? []).map((name) => `refs/heads/${name}`));
  const keptRefs = (refs: string) =>
    refs
      .split("\n")
      .filter((line) => line !== "" && !moved.has(line.split(" ")[0] ?? ""))
      .filter((line) => before.refs.includes(line.split(" ")[0] ?? "\u0000"));
  expect(keptRefs(after.refs)).toEqual(keptRefs(before.refs));
  expect(after.gitConfig).toBe(before.gitConfig);
}
