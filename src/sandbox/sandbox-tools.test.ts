import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findSandboxTools } from "./sandbox-tools.js";

const NAMES = ["nsenter", "unshare", "setpriv"] as const;

let folders: string[];

async function folderWith(names: readonly string[], mode: number): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "sandbox-tools-"));
  folders.push(folder);
  for (const name of names) {
    await writeFile(join(folder, name), "#!/bin/sh\n");
    await chmod(join(folder, name), mode);
  }
  return folder;
}

beforeEach(() => {
  folders = [];
});

afterEach(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe("findSandboxTools", () => {
  it("finds every tool by absolute path in the first folder of the PATH that has it", async () => {
    const first = await folderWith(NAMES, 0o755);
    const second = await folderWith(NAMES, 0o755);
    expect(findSandboxTools([first, second].join(delimiter))).toEqual({
      nsenter: join(first, "nsenter"),
      unshare: join(first, "unshare"),
      setpriv: join(first, "setpriv"),
    });
  });

  it("names the tools missing from the PATH", async () => {
    const folder = await folderWith(["unshare"], 0o755);
    expect(findSandboxTools(folder)).toEqual({ missing: ["nsenter", "setpriv"] });
  });

  it("skips a file that is not executable", async () => {
    const unusable = await folderWith(["nsenter", "setpriv"], 0o644);
    const usable = await folderWith(NAMES, 0o755);
    expect(findSandboxTools([unusable, usable].join(delimiter))).toEqual({
      nsenter: join(usable, "nsenter"),
      unshare: join(usable, "unshare"),
      setpriv: join(usable, "setpriv"),
    });
  });

  it("ignores empty folders in the PATH", async () => {
    const folder = await folderWith(NAMES, 0o755);
    const found = findSandboxTools(`${delimiter}${folder}${delimiter}`);
    expect(found).toHaveProperty("setpriv", join(folder, "setpriv"));
  });
});
