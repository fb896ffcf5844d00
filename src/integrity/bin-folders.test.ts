import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ProtectedSet } from "../ports/files.js";
import { DEPENDENCY_BIN_FOLDERS } from "./bin-folders.js";
import { compareProtected, protectedChangedFailure } from "./guards.js";
import { fingerprintProtected, makeProtectedCache } from "./protected-files.js";

describe("dependency bin folders", () => {
  let dir: string;
  let set: ProtectedSet;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "closer-bins-"));
    await mkdir(join(dir, "node_modules", "vitest"), { recursive: true });
    await mkdir(join(dir, "node_modules", ".bin"), { recursive: true });
    await writeFile(join(dir, "node_modules", "vitest", "vitest.mjs"), "import './dist/cli.js'\n");
    await symlink("../vitest/vitest.mjs", join(dir, "node_modules", ".bin", "vitest"));
    await writeFile(join(dir, "node_modules", ".bin", "tsc"), "#!/bin/sh\nexec node tsc.js\n");
    await chmod(join(dir, "node_modules", ".bin", "tsc"), 0o755);
    set = {
      workTree: dir,
      globs: [],
      folders: [],
      packageScripts: [],
      binFolders: DEPENDENCY_BIN_FOLDERS,
    };
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("names each executable of a bin folder, not the packages behind them", async () => {
    expect(Object.keys(await fingerprintProtected(set)).sort()).toEqual([
      "node_modules/.bin › tsc",
      "node_modules/.bin › vitest",
    ]);
  });

  it("a runner's link replaced by a shim, a new executable and an edited entry script are caught", async () => {
    const cache = makeProtectedCache();
    const before = await fingerprintProtected(set, cache);
    await rm(join(dir, "node_modules", ".bin", "vitest"));
    await writeFile(join(dir, "node_modules", ".bin", "vitest"), "#!/bin/sh\necho '1 passed'\n");
    await writeFile(join(dir, "node_modules", ".bin", "jest"), "#!/bin/sh\nexit 0\n");
    await writeFile(join(dir, "node_modules", ".bin", "tsc"), "#!/bin/sh\nexit 0\n");
    expect(compareProtected(before, await fingerprintProtected(set, cache))).toEqual({
      changed: ["node_modules/.bin › tsc", "node_modules/.bin › vitest"],
      added: ["node_modules/.bin › jest"],
      removed: [],
    });
  });

  it("the file a link reaches, edited in place, changes the link's entry", async () => {
    const cache = makeProtectedCache();
    const before = await fingerprintProtected(set, cache);
    await writeFile(join(dir, "node_modules", "vitest", "vitest.mjs"), "process.exit(0)\n");
    const failure = protectedChangedFailure(before, await fingerprintProtected(set, cache));
    expect(failure?.params.protectedPaths).toEqual(["node_modules/.bin › vitest (changed)"]);
  });

  it("a virtualenv's bin folder is held the same way", async () => {
    await mkdir(join(dir, ".venv", "bin"), { recursive: true });
    await writeFile(join(dir, ".venv", "bin", "pytest"), "#!/usr/bin/env python\n");
    const before = await fingerprintProtected(set);
    await writeFile(join(dir, ".venv", "bin", "pytest"), "#!/bin/sh\necho '3 passed'\n");
    expect(compareProtected(before, await fingerprintProtected(set)).changed).toEqual([
      ".venv/bin › pytest",
    ]);
  });
});
