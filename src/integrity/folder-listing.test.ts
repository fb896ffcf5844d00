import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FolderCache, listFolder } from "./folder-listing.js";

/** Every folder counts as settled: the cache is used wherever the folders allow it. */
const LATER = Number.POSITIVE_INFINITY;

describe("the protected folders' listings (docs/integrity.md#file-identity)", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "closer-listing-"));
    await mkdir(join(root, "agent/prompts/steps"), { recursive: true });
    await writeFile(join(root, "agent/agent.json"), "{}\n");
    await writeFile(join(root, "agent/prompts/steps/f_default.md"), "Do it.\n");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("sees a file added, renamed or removed deep in a folder listed before", async () => {
    const folder = join(root, "agent");
    const cache: FolderCache = new Map();
    const first = listFolder(folder, cache, LATER).sort();
    expect(first).toEqual([join(folder, "agent.json"), join(folder, "prompts/steps/f_default.md")]);
    expect(listFolder(folder, cache, LATER).sort()).toEqual(first);

    await writeFile(join(folder, "prompts/steps/f_failed_x.md"), "Fix it.\n");
    expect(listFolder(folder, cache, LATER)).toContain(join(folder, "prompts/steps/f_failed_x.md"));

    await rename(join(folder, "prompts/steps/f_default.md"), join(folder, "prompts/moved.md"));
    await mkdir(join(folder, "prompts/steps/new"));
    await writeFile(join(folder, "prompts/steps/new/f_new.md"), "New.\n");
    expect(listFolder(folder, cache, LATER).sort()).toEqual([
      join(folder, "agent.json"),
      join(folder, "prompts/moved.md"),
      join(folder, "prompts/steps/f_failed_x.md"),
      join(folder, "prompts/steps/new/f_new.md"),
    ]);

    await rm(join(folder, "prompts"), { recursive: true });
    expect(listFolder(folder, cache, LATER)).toEqual([join(folder, "agent.json")]);
  });

  it("lists a folder that appears after it was missing, and never node_modules", async () => {
    const folder = join(root, "later");
    const cache: FolderCache = new Map();
    expect(listFolder(folder, cache, LATER)).toEqual([]);
    await mkdir(join(folder, "node_modules/pkg"), { recursive: true });
    await writeFile(join(folder, "node_modules/pkg/index.js"), "");
    await writeFile(join(folder, "check.sh"), "true\n");
    expect(listFolder(folder, cache, LATER)).toEqual([join(folder, "check.sh")]);
  });
});
