import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixtureRepo } from "../../src/testing/index.js";
import { makeCliRepo } from "./support/cli-repo.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
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

/** The packages a `closer` process loaded, e.g. `zod`, `@octokit/rest`. */
async function packagesLoadedBy(args: readonly string[], cwd: string): Promise<Set<string>> {
  const list = join(hookDir, `loaded-${++runs}.txt`);
  await writeFile(list, "");
  const child = spawn(
    process.execPath,
    [
      "--import",
      TSX_LOADER,
      "--import",
      join(hookDir, "register.mjs"),
      "--require",
      join(hookDir, "on-exit.cjs"),
      MAIN,
      ...args,
    ],
    { cwd, env: { ...process.env, LOADED_MODULES: list, NO_COLOR: "1" }, stdio: "ignore" },
  );
  const code = await new Promise((resolve) => child.on("exit", resolve));
  expect(code).toBe(0);
  const packages = new Set<string>();
  for (const line of (await readFile(list, "utf8")).split("\n")) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(decodeURI(line))?.[1];
    if (name !== undefined) packages.add(name);
  }
  return packages;
}

function loadedOf(packages: Set<string>, wanted: readonly string[]): string[] {
  return [...packages].filter((name) => wanted.some((prefix) => name.startsWith(prefix)));
}

const NEVER_FOR_HELP = ["zod", "ajv", "handlebars", "yaml", "@octokit/", "@anthropic-ai/"];
const ONLY_FOR_GITHUB_AND_CLAUDE = ["@octokit/", "@anthropic-ai/"];

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
  });

  describe("a run", () => {
    let repo: FixtureRepo | undefined;
    afterAll(async () => {
      await repo?.cleanup();
    });

    it("with the command backend and the sandbox off loads neither Octokit nor anything of Anthropic's", async () => {
      repo = await makeCliRepo();
      const packages = await packagesLoadedBy(
        ["run", "good", "--task", "write work.txt", "--no-worktree", "--sandbox", "off"],
        repo.dir,
      );
      expect(packages.has("zod")).toBe(true);
      expect(loadedOf(packages, ONLY_FOR_GITHUB_AND_CLAUDE)).toEqual([]);
    });
  });
});
