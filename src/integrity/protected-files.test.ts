import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ProtectedSet } from "../ports/files.js";
import { compareProtected } from "./guards.js";
import { DEFAULT_PROTECTED_GLOBS, fingerprintProtected } from "./protected-files.js";

describe("fingerprintProtected", () => {
  let dir: string;
  let set: ProtectedSet;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "closer-protected-"));
    const files: Record<string, string> = {
      "package.json": JSON.stringify({ scripts: { test: "vitest run", build: "tsc" } }),
      "vitest.config.ts": "export default {}\n",
      ".github/workflows/ci.yml": "on: push\n",
      "src/add.js": "export const add = (a, b) => a + b;\n",
      ".agent/tasker/agent.json": "{}\n",
      "node_modules/x/vitest.config.ts": "ignored\n",
      "custom/rules.txt": "strict\n",
      "custom/notes.txt": "free\n",
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(join(dir, file, ".."), { recursive: true });
      await writeFile(join(dir, file), text);
    }
    set = {
      workTree: dir,
      globs: [...DEFAULT_PROTECTED_GLOBS, "custom/**", "!custom/notes.txt"],
      folders: [join(dir, ".agent", "tasker")],
      packageScripts: ["pretest", "test", "posttest"],
    };
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("hashes runner and CI config, protected folders, the checks' scripts and the registry's globs", async () => {
    expect(Object.keys(await fingerprintProtected(set)).sort()).toEqual([
      ".agent/tasker/agent.json",
      ".github/workflows/ci.yml",
      "custom/rules.txt",
      "package.json › scripts.test",
      "vitest.config.ts",
    ]);
  });

  it("sees a changed script, an edited config, a removed file and an added one; not the code", async () => {
    const before = await fingerprintProtected(set);
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ scripts: { test: "true", build: "tsc --noEmit" } }),
    );
    await writeFile(join(dir, "vitest.config.ts"), "export default { test: { include: [] } }\n");
    await rm(join(dir, ".github", "workflows", "ci.yml"));
    await writeFile(join(dir, "jest.config.js"), "module.exports = {}\n");
    await writeFile(join(dir, "src", "add.js"), "export const add = () => 5;\n");
    await writeFile(join(dir, "custom", "notes.txt"), "changed, but taken out\n");

    expect(compareProtected(before, await fingerprintProtected(set))).toEqual({
      changed: ["package.json › scripts.test", "vitest.config.ts"],
      added: ["jest.config.js"],
      removed: [".github/workflows/ci.yml"],
    });
  });

  it("sees package-manager, runtime, environment and git-attribute files added at the top", async () => {
    const before = await fingerprintProtected(set);
    const added = [
      ".npmrc",
      ".yarnrc.yml",
      ".pnpmfile.cjs",
      "bunfig.toml",
      ".nvmrc",
      ".env",
      ".env.test",
      ".gitattributes",
      "setup.cfg",
    ];
    for (const file of added) await writeFile(join(dir, file), "node-options=--require ./x.cjs\n");
    await writeFile(join(dir, "src", ".npmrc"), "not read by npm test at the top\n");
    expect(compareProtected(before, await fingerprintProtected(set)).added).toEqual(
      [...added].sort(),
    );
  });

  it("reports a package.json that no longer parses as its scripts removed", async () => {
    const before = await fingerprintProtected(set);
    await writeFile(join(dir, "package.json"), "{ not json");
    expect(compareProtected(before, await fingerprintProtected(set)).removed).toEqual([
      "package.json › scripts.test",
    ]);
  });

  it("names a protected folder outside the working tree by its absolute path", async () => {
    const outside = await mkdtemp(join(tmpdir(), "closer-snapshot-"));
    try {
      await writeFile(join(outside, "agent.json"), "{}\n");
      const fingerprint = await fingerprintProtected({ ...set, folders: [outside] });
      expect(Object.keys(fingerprint)).toContain(join(outside, "agent.json"));
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
