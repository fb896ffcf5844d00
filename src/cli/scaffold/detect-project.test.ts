import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chooseChecks } from "./choose-checks.js";
import { detectProject } from "./detect-project.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "closer-detect-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function project(files: Record<string, string | object>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await writeFile(
      join(dir, path),
      typeof content === "string" ? content : JSON.stringify(content),
    );
  }
}

/** The chosen commands by role, and what was skipped. */
async function chosen(testCommand?: string) {
  const findings = await detectProject(dir);
  const { chosen, skipped } = chooseChecks(findings, testCommand);
  return {
    found: findings.found,
    commands: Object.fromEntries(chosen.map((check) => [check.role, check.command])),
    parsers: Object.fromEntries(chosen.map((check) => [check.role, check.parser ?? null])),
    skipped: skipped.map((skip) => `${skip.what}: ${skip.why}`),
  };
}

describe("detectProject, package.json", () => {
  it("takes the package manager from packageManager over the lockfile", async () => {
    await project({
      "package.json": { packageManager: "pnpm@9.1.0", scripts: { test: "vitest run" } },
      "package-lock.json": "{}",
    });
    const result = await chosen();
    expect(result.found).toEqual(["package.json (pnpm, from the packageManager field)"]);
    expect(result.commands).toEqual({ test: "pnpm test" });
  });

  it.each([
    ["pnpm-lock.yaml", "pnpm test", "pnpm run lint"],
    ["yarn.lock", "yarn test", "yarn run lint"],
    ["bun.lockb", "bun run test", "bun run lint"],
    ["package-lock.json", "npm test", "npm run lint"],
  ])("reads %s as the package manager's lockfile", async (lockfile, test, lint) => {
    await project({ "package.json": { scripts: { test: "x", lint: "y" } }, [lockfile]: "" });
    expect((await chosen()).commands).toEqual({ test, lint });
  });

  it("leaves out npm's placeholder test script and names the test:* scripts it did not guess", async () => {
    await project({
      "package.json": {
        scripts: { test: 'echo "Error: no test specified" && exit 1', "test:unit": "vitest" },
      },
    });
    const result = await chosen();
    expect(result.commands).toEqual({});
    expect(result.skipped).toEqual([
      "package.json scripts.test: it is npm's placeholder",
      'package.json scripts.test:unit: not named "test"; to use it: --test-command "npm run test:unit"',
    ]);
  });

  it("prefers a typecheck script to tsc, and runs tsc only when typescript is a dependency", async () => {
    await project({
      "package.json": { scripts: { check: "tsc -b" }, devDependencies: { typescript: "5" } },
      "tsconfig.json": "{}",
    });
    expect((await chosen()).commands).toEqual({ typecheck: "npm run check" });
    await project({ "package.json": { devDependencies: { typescript: "5" } } });
    expect((await chosen()).commands).toEqual({ typecheck: "npx --no-install tsc --noEmit" });
    await project({ "package.json": { dependencies: {} } });
    const untyped = await chosen();
    expect(untyped.commands).toEqual({});
    expect(untyped.skipped).toContain(
      "tsc: tsconfig.json is there, but typescript is no dependency",
    );
  });

  it("runs the project's own tsc, never a package fetched by name (npx tsc would fetch `tsc`)", async () => {
    const expected = {
      npm: "npx --no-install tsc --noEmit",
      pnpm: "pnpm exec tsc --noEmit",
      yarn: "yarn tsc --noEmit",
      bun: "bun run tsc --noEmit",
    };
    for (const [manager, command] of Object.entries(expected)) {
      await project({
        "package.json": {
          packageManager: `${manager}@1.0.0`,
          devDependencies: { typescript: "5" },
        },
        "tsconfig.json": "{}",
      });
      const { commands } = await chosen();
      expect(commands).toEqual({ typecheck: command });
      // Bare npx and bunx install what is missing; every other command runs what is installed.
      expect(Object.values(commands).join("\n")).not.toMatch(/\bnpx (?!--no-install)|\bbunx\b/);
    }
  });

  it("reports a package.json that is not JSON instead of guessing", async () => {
    await project({ "package.json": "{ nope" });
    const result = await chosen();
    expect(result.commands).toEqual({});
    expect(result.skipped).toEqual([
      "package.json: it is not valid JSON; fix it and run init again",
    ]);
  });
});

describe("detectProject, pytest", () => {
  it.each([
    ["pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-q'\n"],
    ["pyproject.toml", '[project]\noptional-dependencies = { test = ["pytest>=8"] }\n'],
    ["pyproject.toml", '[tool.poetry.group.dev.dependencies]\npytest = "^8"\n'],
    ["pytest.ini", "[pytest]\n"],
    ["setup.cfg", "[tool:pytest]\n"],
  ])("finds pytest in %s", async (file, text) => {
    await project({ [file]: text });
    expect((await chosen()).commands).toEqual({ test: "pytest" });
  });

  it("does not take pytest-cov alone for pytest", async () => {
    await project({ "pyproject.toml": '[project]\ndependencies = ["pytest-cov"]\n' });
    const result = await chosen();
    expect(result.commands).toEqual({});
    expect(result.skipped).toEqual(["pyproject.toml: no pytest configuration or dependency"]);
  });

  it("runs pytest through uv when there is a uv.lock, and names tox as the alternative", async () => {
    await project({
      "pyproject.toml": '[dependency-groups]\ndev = ["pytest"]\n',
      "uv.lock": "version = 1\n",
      "tox.ini": "[tox]\nenvlist = py312\n",
    });
    const result = await chosen();
    expect(result.commands).toEqual({ test: "uv run pytest" });
    expect(result.skipped).toContain(
      "tox (tox.ini): the test check is already uv run pytest (uv.lock and pytest among pyproject.toml's dependencies)",
    );
  });

  it("runs pytest through Poetry when there is a poetry.lock", async () => {
    await project({
      "pyproject.toml": '[tool.poetry.group.dev.dependencies]\npytest = "^8"\n',
      "poetry.lock": "",
    });
    const result = await chosen();
    expect(result.found).toEqual(["pyproject.toml", "poetry.lock"]);
    expect(result.commands).toEqual({ test: "poetry run pytest" });
  });

  it("runs tox when tox.ini defines environments, pytest when it only configures pytest", async () => {
    await project({ "tox.ini": "[testenv]\ncommands = pytest\n" });
    expect((await chosen()).commands).toEqual({ test: "tox" });
    await project({ "tox.ini": "[pytest]\naddopts = -q\n" });
    expect((await chosen()).commands).toEqual({ test: "pytest" });
  });
});

describe("detectProject, toolchains", () => {
  it("reads go.mod, Cargo.toml and deno.jsonc", async () => {
    await project({ "go.mod": "module example.com/app\n" });
    expect((await chosen()).commands).toEqual({ test: "go test -v ./...", lint: "go vet ./..." });
    await rm(join(dir, "go.mod"));
    await project({ "Cargo.toml": "[package]\nname = 'app'\n" });
    const cargo = await chosen();
    expect(cargo.commands).toEqual({ test: "cargo test" });
    expect(cargo.skipped[0]).toMatch(/^cargo clippy: not every Rust toolchain has it/);
    await rm(join(dir, "Cargo.toml"));
    await project({ "deno.jsonc": "// deno\n{}" });
    const deno = await chosen();
    expect(deno.found).toEqual(["deno.jsonc"]);
    expect(deno.commands).toEqual({
      test: "deno test",
      typecheck: "deno check",
      lint: "deno lint",
    });
    expect(deno.parsers).toEqual({
      test: "parseTestOutput",
      typecheck: "parseTypeErrors",
      lint: null,
    });
  });

  it.each([
    ["test:\n\tgo test ./...\n", true],
    ["all check test: build\n\t./run\n", true],
    ["test::\n\t./run\n", true],
    [".PHONY: test\nunit:\n\t./run\n", false],
    ["test := ./run\nunit:\n\t$(test)\n", false],
    ["build:\n\ttest: x\n", false],
    ["tests:\n\t./run\n", false],
  ])("takes %j as a Makefile with a test target: %s", async (makefile, hasTest) => {
    await project({ Makefile: makefile });
    const result = await chosen();
    expect(result.commands).toEqual(hasTest ? { test: "make test" } : {});
    if (!hasTest) expect(result.skipped).toEqual(["Makefile: it has no test target"]);
  });

  it("prefers the project's own runner to make test, and --test-command to both", async () => {
    await project({
      "package.json": { scripts: { test: "node --test" } },
      Makefile: "test:\n\tx\n",
    });
    const result = await chosen();
    expect(result.commands).toEqual({ test: "npm test" });
    expect(result.skipped).toContain(
      "make test (Makefile target test): the test check is already npm test (package.json scripts.test)",
    );
    const given = await chosen("npm run test:ci");
    expect(given.commands).toEqual({ test: "npm run test:ci" });
    expect(given.skipped).toContain(
      "npm test (package.json scripts.test): the test check is already npm run test:ci (--test-command)",
    );
  });

  it("finds nothing in an empty folder", async () => {
    expect(await chosen()).toEqual({ found: [], commands: {}, parsers: {}, skipped: [] });
  });
});
