import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const CODE_CACHE = fileURLToPath(new URL("../../src/cli/code-cache.ts", import.meta.url));
const BIN = fileURLToPath(new URL("../../dist/bin/closer.js", import.meta.url));

/** Runs the bundle in `dir` through runBundleWithCodeCache; prints what became of the cache on stderr. */
const DRIVER = `import { runBundleWithCodeCache } from ${JSON.stringify(CODE_CACHE)};
const [bundle, bundleId, command, cacheDir] = process.argv.slice(2);
const use = runBundleWithCodeCache(bundle, { bundleId, command, ...(cacheDir ? { cacheDir } : {}) });
process.stderr.write("cache:" + use + "\\n");
`;

/**
 * A CommonJS bundle as the build writes one: it requires a file beside it,
 * imports a module through the `import()` the entry hands it, and says
 * whether it runs in strict mode.
 */
const BUNDLE = `"use strict";
const path = require("node:path");
const sibling = require("./sibling.cjs");
const strict = (function () { return this === undefined; })();
__closerImportModule("node:os").then((os) => {
  process.stdout.write(JSON.stringify({ file: path.basename(__filename), sibling, strict, os: typeof os.cpus }));
});
`;

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly cache: string | undefined;
}

let dir = "";

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "closer-code-cache-"));
  await writeFile(join(dir, "driver.mts"), DRIVER);
  await writeFile(join(dir, "bundle.cjs"), BUNDLE);
  await writeFile(join(dir, "sibling.cjs"), 'module.exports = "beside";\n');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function runBundle(
  options: { bundleId?: string; command?: string; cacheDir?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Outcome> {
  const args = [
    "--import",
    TSX_LOADER,
    join(dir, "driver.mts"),
    join(dir, "bundle.cjs"),
    options.bundleId ?? "build-1",
    options.command ?? "run",
    options.cacheDir ?? "",
  ];
  return runNode(args, { ...process.env, NODE_DISABLE_COMPILE_CACHE: "", ...options.env });
}

function runNode(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => {
    child.on("close", (code) => {
      const cache = /cache:(\w+)/.exec(stderr)?.[1];
      resolve({ code, stdout, stderr, cache });
    });
  });
}

const EXPECTED_OUTPUT = { file: "bundle.cjs", sibling: "beside", strict: true, os: "function" };

async function cacheFiles(cacheDir = join(dir, "code-cache")): Promise<string[]> {
  return existsSync(cacheDir) ? (await readdir(cacheDir)).sort() : [];
}

describe("docs/cli.md#code-cache the command bundle runs from a V8 code cache", () => {
  it("the first run writes the cache on exit, the next one starts from it, and both do the same", async () => {
    const first = await runBundle();
    expect(first.code).toBe(0);
    expect(first.cache).toBe("written");
    expect(JSON.parse(first.stdout)).toEqual(EXPECTED_OUTPUT);
    const files = await cacheFiles();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^build-1-.+-run\.bin$/);

    const second = await runBundle();
    expect(second.cache).toBe("used");
    expect(JSON.parse(second.stdout)).toEqual(EXPECTED_OUTPUT);
    expect(await cacheFiles()).toEqual(files);
  });

  it("each command and each build keeps its own cache; another build's is never read", async () => {
    await runBundle({ command: "run" });
    const otherCommand = await runBundle({ command: "validate" });
    expect(otherCommand.cache).toBe("written");
    const otherBuild = await runBundle({ bundleId: "build-2", command: "run" });
    expect(otherBuild.cache).toBe("written");
    const names = await cacheFiles();
    expect(names).toHaveLength(3);
    expect(names.filter((name) => name.startsWith("build-1-"))).toHaveLength(2);
  });

  it("a damaged cache is rejected, the command still runs as it should, and the cache is written anew", async () => {
    await runBundle();
    const [name] = await cacheFiles();
    const file = join(dir, "code-cache", name ?? "");
    await writeFile(file, "not bytecode at all");

    const damaged = await runBundle();
    expect(damaged.code).toBe(0);
    expect(damaged.cache).toBe("rejected");
    expect(JSON.parse(damaged.stdout)).toEqual(EXPECTED_OUTPUT);
    expect((await readFile(file)).length).toBeGreaterThan(100);
    expect((await runBundle()).cache).toBe("used");
  });

  it("NODE_DISABLE_COMPILE_CACHE turns it off: nothing is read or written", async () => {
    const off = await runBundle({ env: { NODE_DISABLE_COMPILE_CACHE: "1" } });
    expect(off.cache).toBe("off");
    expect(JSON.parse(off.stdout)).toEqual(EXPECTED_OUTPUT);
    expect(await cacheFiles()).toEqual([]);
  });

  it("a cache that cannot be written costs nothing but the speed", async () => {
    const blocked = join(dir, "blocked");
    await writeFile(blocked, "a file where the cache folder would be\n");
    const outcome = await runBundle({ cacheDir: join(blocked, "code-cache") });
    expect(outcome.code).toBe(0);
    expect(JSON.parse(outcome.stdout)).toEqual(EXPECTED_OUTPUT);
    expect(outcome.stderr.replace(/cache:\w+\n/, "")).toBe("");
  });

  it("an error in the bundle is reported as the bundle's, with its exit code", async () => {
    await writeFile(join(dir, "bundle.cjs"), '"use strict";\nthrow new Error("broken bundle");\n');
    await mkdir(join(dir, "code-cache"));
    const outcome = await runBundle();
    expect(outcome.code).not.toBe(0);
    expect(outcome.stderr).toContain("broken bundle");
    expect(outcome.stderr).toContain("bundle.cjs:2");
  });

  describe.skipIf(!existsSync(BIN))("the shipped bin", () => {
    it("keeps a cache per command beside its bundle and answers the same from it", async () => {
      const env = { ...process.env, NODE_DISABLE_COMPILE_CACHE: "" };
      const first = await runNode([BIN, "--version"], env);
      const second = await runNode([BIN, "--version"], env);
      expect(first.code).toBe(0);
      expect(second.stdout).toBe(first.stdout);
      const cached = await cacheFiles(join(BIN, "..", "code-cache"));
      expect(cached.some((name) => name.endsWith("-closer.bin"))).toBe(true);
    });
  });
});
