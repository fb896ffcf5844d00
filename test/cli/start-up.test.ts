import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixtureRepo } from "../../src/testing/index.js";
import { makeCliRepo } from "./support/cli-repo.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const BIN = fileURLToPath(new URL("../../dist/bin/closer.js", import.meta.url));
const EXAMPLE_REPO = fileURLToPath(new URL("../../examples/example-repo/", import.meta.url));

/**
 * A load hook that appends the URL of every ES module to $LOADED_MODULES, and
 * an exit handler that appends every CommonJS file Node required: together,
 * every file of the dependencies a process loaded (the bundle esbuild makes
 * splits along the same imports: docs/cli.md#start-up).
 */
const HOOKS = `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_MODULES, url + "\\n");
  return next(url, context);
}`;
const REGISTER = `import { register } from "node:module";
register("./hooks.mjs", import.meta.url);`;
const ON_EXIT = `process.on("exit", () => {
  require("node:fs").appendFileSync(process.env.LOADED_MODULES, Object.keys(require.cache).join("\\n") + "\\n");
});`;

const PACKAGE_IN_PATH = /node_modules\/((?:@[^/]+\/)?[^/]+)\//;

/** From source, through tsx: the module graph the bundle is split along. */
const FROM_SOURCE = ["--import", TSX_LOADER, MAIN];

/** The packages a `closer` process loaded, e.g. `zod`, `@octokit/rest`. */
async function packagesLoadedBy(args: readonly string[], cwd: string): Promise<Set<string>> {
  const packages = new Set<string>();
  for (const file of await filesLoadedBy(FROM_SOURCE, args, cwd)) {
    const name = PACKAGE_IN_PATH.exec(file)?.[1];
    if (name !== undefined) packages.add(name);
  }
  return packages;
}

/** Every file (ES module URL or CommonJS path) a process started with `entry` and `args` loaded. */
async function filesLoadedBy(
  entry: readonly string[],
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>> = {},
): Promise<string[]> {
  const list = join(hookDir, `loaded-${++runs}.txt`);
  await writeFile(list, "");
  const child = spawn(
    process.execPath,
    ["--import", join(hookDir, "register.mjs"), "--require", join(hookDir, "on-exit.cjs")]
      .concat(entry)
      .concat(args),
    { cwd, env: { ...process.env, ...env, LOADED_MODULES: list, NO_COLOR: "1" }, stdio: "ignore" },
  );
  const code = await new Promise((resolve) => child.on("exit", resolve));
  expect(code).toBe(0);
  const lines = (await readFile(list, "utf8")).split("\n").filter((line) => line !== "");
  return [...new Set(lines.map((line) => decodeURI(line)))];
}

function loadedOf(packages: Set<string>, wanted: readonly string[]): string[] {
  return [...packages].filter((name) => wanted.some((prefix) => name.startsWith(prefix)));
}

const NEVER_FOR_HELP = [
  "zod",
  "ajv",
  "handlebars",
  "yaml",
  "@octokit/",
  "@anthropic-ai/",
  "bullmq",
  "ioredis",
];
const ONLY_FOR_GITHUB_AND_CLAUDE = ["@octokit/", "@anthropic-ai/"];
/** The AI SDK: loaded by the openai-compatible backend's first query, never before. */
function loadsAiSdk(packages: Set<string>): boolean {
  return packages.has("ai") || loadedOf(packages, ["@ai-sdk/"]).length > 0;
}

/** The queue commands' libraries (docs/queue.md): no other command loads them. */
const ONLY_FOR_THE_QUEUE = ["bullmq", "ioredis"];

let hookDir = "";
let runs = 0;

describe("docs/cli.md#start-up a command loads what it uses", () => {
  beforeAll(async () => {
    hookDir = await mkdtemp(join(tmpdir(), "closer-start-up-"));
    await writeFile(join(hookDir, "hooks.mjs"), HOOKS);
    await writeFile(join(hookDir, "register.mjs"), REGISTER);
    await writeFile(join(hookDir, "on-exit.cjs"), ON_EXIT);
  });
  afterAll(async () => {
    await rm(hookDir, { recursive: true, force: true });
  });

  it("--help loads commander and none of the libraries a command's work needs", async () => {
    const packages = await packagesLoadedBy(["--help"], EXAMPLE_REPO);
    expect(packages.has("commander")).toBe(true);
    expect(loadedOf(packages, NEVER_FOR_HELP)).toEqual([]);
  });

  it("validate loads the definition's libraries, not Octokit or the Claude Agent SDK", async () => {
    const packages = await packagesLoadedBy(["validate", "example"], EXAMPLE_REPO);
    expect(packages.has("zod")).toBe(true);
    expect(loadedOf(packages, ONLY_FOR_GITHUB_AND_CLAUDE)).toEqual([]);
    expect(loadsAiSdk(packages)).toBe(false);
    expect(loadedOf(packages, ONLY_FOR_THE_QUEUE)).toEqual([]);
  });

  it("--help, and validate of an agent without custom validators, load no process runner: they start no process", async () => {
    for (const args of [["--help"], ["validate", "example"]]) {
      const files = await filesLoadedBy(FROM_SOURCE, args, EXAMPLE_REPO);
      expect(files.some((file) => file.endsWith("/src/definition/load-agent.ts"))).toBe(
        args[0] === "validate",
      );
      expect(files.filter((file) => file.includes("/src/process/shell-command."))).toEqual([]);
    }
  });

  describe("a run", () => {
    let repo: FixtureRepo | undefined;
    afterAll(async () => {
      await repo?.cleanup();
    });

    it("with the command backend and the sandbox off loads neither Octokit, anything of Anthropic's, nor the AI SDK", async () => {
      repo = await makeCliRepo();
      const packages = await packagesLoadedBy(
        ["run", "good", "--task", "write work.txt", "--no-worktree", "--sandbox", "off"],
        repo.dir,
      );
      expect(packages.has("zod")).toBe(true);
      expect(loadedOf(packages, ONLY_FOR_GITHUB_AND_CLAUDE)).toEqual([]);
      expect(loadsAiSdk(packages)).toBe(false);
      expect(loadedOf(packages, ONLY_FOR_THE_QUEUE)).toEqual([]);
      // No step of this agent has an output schema: nothing checks one.
      expect(loadedOf(packages, ["ajv"])).toEqual([]);
    });
  });

  // The shipped bin, when built: one bundle, whose modules run on first use (docs/cli.md#start-up).
  describe.skipIf(!existsSync(BIN))("the bundled bin", () => {
    it("--help loads commander and none of the libraries a command's work needs", async () => {
      const packages = await packagesTheBinLoads(["--help"], EXAMPLE_REPO);
      expect(packages.has("commander")).toBe(true);
      expect(loadedOf(packages, NEVER_FOR_HELP)).toEqual([]);
    });

    it("validate loads the definition's libraries, not Octokit or the Claude Agent SDK", async () => {
      const packages = await packagesTheBinLoads(["validate", "example"], EXAMPLE_REPO);
      expect(packages.has("zod")).toBe(true);
      expect(packages.has("handlebars")).toBe(true);
      expect(loadedOf(packages, ONLY_FOR_GITHUB_AND_CLAUDE)).toEqual([]);
      expect(loadsAiSdk(packages)).toBe(false);
      // No step of this agent has an output schema: nothing checks one.
      expect(loadedOf(packages, ["ajv"])).toEqual([]);
    });
  });
});

/**
 * The packages the bundled bin loaded: from node_modules, or inside the
 * bundle. esbuild wraps each module the bundle loads on first use in a
 * function named by its path (`node_modules/zod/v4/core/core.js`); V8's
 * coverage says which of them ran.
 */
async function packagesTheBinLoads(args: readonly string[], cwd: string): Promise<Set<string>> {
  const coverageDir = join(hookDir, `coverage-${++runs}`);
  const packages = new Set<string>();
  const files = await filesLoadedBy([BIN], args, cwd, { NODE_V8_COVERAGE: coverageDir });
  for (const file of files) {
    const name = PACKAGE_IN_PATH.exec(file)?.[1];
    if (name !== undefined) packages.add(name);
  }
  for (const name of await bundledPackagesRun(coverageDir)) packages.add(name);
  return packages;
}

/** Packages of the bundle whose module functions ran, by the coverage files in `dir`. */
async function bundledPackagesRun(dir: string): Promise<string[]> {
  const bundleUrl = pathToFileURL(join(dirname(BIN), "closer-core.cjs")).href;
  const ran: string[] = [];
  for (const file of await readdir(dir)) {
    const coverage = JSON.parse(await readFile(join(dir, file), "utf8")) as V8Coverage;
    const bundle = coverage.result.find((script) => script.url === bundleUrl);
    for (const fn of bundle?.functions ?? []) {
      const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(fn.functionName)?.[1];
      if (name !== undefined && (fn.ranges[0]?.count ?? 0) > 0) ran.push(name);
    }
  }
  expect(ran.length, "coverage of the bundle (was it run?)").toBeGreaterThan(0);
  return ran;
}

interface V8Coverage {
  readonly result: readonly {
    readonly url: string;
    readonly functions: readonly {
      readonly functionName: string;
      readonly ranges: readonly { readonly count: number }[];
    }[];
  }[];
}
