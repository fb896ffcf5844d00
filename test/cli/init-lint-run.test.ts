/**
 * What `closer init` writes passes the project's own formatter and linter: fixture projects
 * set up as real ones are (biome, prettier, eslint, ruff and mypy, each with its configuration
 * and the project's lint command), linted for real before and after init
 * (docs/cli.md#init-formatters). prettier, eslint, ruff and mypy are installed once into a
 * cache folder by scripts/install-lint-tools.mjs; biome is closer's own dev dependency.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFile, symlink } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { formatJson, type JsonStyle } from "../../src/cli/scaffold/json-text.js";
import { type FixtureRepo, makeFixtureRepo } from "../../src/testing/index.js";
import { cli } from "./support/cli-repo.js";

const NODE_MODULES = fileURLToPath(new URL("../../node_modules", import.meta.url));
const INSTALL = fileURLToPath(new URL("../../scripts/install-lint-tools.mjs", import.meta.url));

interface LintTools {
  readonly nodeModules: string | null;
  readonly pythonBin: string | null;
  readonly nodeProblem: string | null;
  readonly pythonProblem: string | null;
}

/** Installs (or finds in the cache) prettier, eslint, ruff and mypy; never throws. */
function lintTools(): LintTools {
  try {
    const out = execFileSync("node", [INSTALL], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 900_000,
    });
    return JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as LintTools;
  } catch (error) {
    const problem = `scripts/install-lint-tools.mjs failed: ${(error as Error).message}`;
    return { nodeModules: null, pythonBin: null, nodeProblem: problem, pythonProblem: problem };
  }
}

const TOOLS = lintTools();

const TABS: JsonStyle = { indent: "\t", indentColumns: 2, lineWidth: 80, lineEnding: "\n" };
const SPACES: JsonStyle = { ...TABS, indent: "  " };
const FOURS: JsonStyle = { ...TABS, indent: "    ", indentColumns: 4, lineWidth: 60 };
const GITIGNORE = "node_modules\n.mypy_cache/\n.ruff_cache/\n__pycache__/\n";
const SOURCE = "export const add = (a, b) => a + b;\n";

interface LintProject {
  readonly kind: string;
  /** Where the project's node_modules comes from: closer's own (biome), or the tools' cache. */
  readonly tools: "biome" | "node" | "python";
  readonly files: Readonly<Record<string, string>>;
  /** The lint and type-check commands init must choose, by validator. */
  readonly checks: Readonly<Record<string, string>>;
  /** Lines init must print. */
  readonly says: readonly string[];
  /** Files besides .agent/ that init may change. */
  readonly touches?: readonly string[];
}

const manifest = (lint: string, devDependencies: Record<string, string>, style: JsonStyle) =>
  formatJson({ name: "calc", type: "module", scripts: { lint }, devDependencies }, style);

const PROJECTS: readonly LintProject[] = [
  {
    kind: "biome, its defaults (no biome.json: tabs)",
    tools: "biome",
    files: {
      "package.json": manifest("biome check .", { "@biomejs/biome": "2.5.15" }, TABS),
      "src/index.js": SOURCE,
    },
    checks: { lint: "npm run lint" },
    says: ["format  JSON the way biome formats it by default (@biomejs/biome, no biome.json)"],
  },
  {
    kind: "biome, biome.json with spaces and 100 columns",
    tools: "biome",
    files: {
      "package.json": manifest("biome check .", { "@biomejs/biome": "2.5.15" }, SPACES),
      "biome.json": formatJson(
        { formatter: { indentStyle: "space", lineWidth: 100 }, linter: { enabled: true } },
        SPACES,
      ),
      "src/index.js": SOURCE,
    },
    checks: { lint: "npm run lint" },
    says: ["format  JSON the way biome formats it (biome.json): 2 spaces, 100 columns"],
  },
  {
    kind: "biome, biome.jsonc whose json formatter has 4 spaces in 60 columns",
    tools: "biome",
    files: {
      "package.json": manifest("biome check .", { "@biomejs/biome": "2.5.15" }, FOURS),
      "biome.jsonc": [
        "{",
        "    // JSON is laid out apart from the code",
        '    "json": {',
        '        "formatter": {',
        '            "indentStyle": "space",',
        '            "indentWidth": 4,',
        '            "lineWidth": 60',
        "        }",
        "    }",
        "}",
        "",
      ].join("\n"),
      "src/index.js": SOURCE,
    },
    checks: { lint: "npm run lint" },
    says: ["format  JSON the way biome formats it (biome.jsonc): 4 spaces, 60 columns"],
  },
  {
    kind: "prettier, its defaults",
    tools: "node",
    files: {
      "package.json": manifest("prettier --check .", { prettier: "3.10.1" }, SPACES),
      "src/index.js": SOURCE,
    },
    checks: { lint: "npm run lint" },
    says: [
      "format  JSON the way prettier formats it by default (prettier, no configuration file): 2 spaces, 80 columns",
      "ignored .agent/demo/prompts/ in .prettierignore (created): prettier would reformat the prompt templates",
    ],
    touches: [".prettierignore"],
  },
  {
    kind: "prettier, .prettierrc in YAML with tabs and 100 columns, and a .prettierignore",
    tools: "node",
    files: {
      "package.json": manifest("prettier --check .", { prettier: "3.10.1" }, TABS),
      ".prettierrc": "useTabs: true\nprintWidth: 100\n",
      ".prettierignore": "dist/",
      "src/index.js": SOURCE,
    },
    checks: { lint: "npm run lint" },
    says: ["format  JSON the way prettier formats it (.prettierrc): tabs, 100 columns"],
    touches: [".prettierignore"],
  },
  {
    kind: "eslint (flat config) and prettier",
    tools: "node",
    files: {
      "package.json": manifest(
        "eslint . && prettier --check .",
        { "@eslint/js": "9.39.5", eslint: "9.39.5", prettier: "3.10.1" },
        SPACES,
      ),
      "eslint.config.js":
        'import js from "@eslint/js";\n\nexport default [js.configs.recommended];\n',
      "src/index.js": SOURCE,
    },
    checks: { lint: "npm run lint" },
    says: [],
    touches: [".prettierignore"],
  },
  {
    kind: "eslint (flat config) alone",
    tools: "node",
    files: {
      "package.json": '{"type":"module","scripts":{"lint":"eslint ."}}\n',
      "eslint.config.js":
        'import js from "@eslint/js";\nexport default [js.configs.recommended, { ignores: ["dist/"] }];\n',
      "src/index.js": SOURCE,
    },
    checks: { lint: "npm run lint" },
    says: [],
  },
  {
    kind: "ruff and mypy configured in pyproject.toml",
    tools: "python",
    files: {
      "pyproject.toml": [
        "[project]",
        'name = "calc"',
        'version = "0.1.0"',
        "",
        "[tool.ruff]",
        "line-length = 88",
        "",
        "[tool.ruff.lint]",
        'select = ["E", "F", "I"]',
        "",
        "[tool.mypy]",
        "strict = true",
        "",
      ].join("\n"),
      "calc.py": "def add(a: int, b: int) -> int:\n    return a + b\n",
    },
    checks: { "type-check": "mypy .", lint: "ruff check ." },
    says: [
      "chose   type-check: mypy . (pyproject.toml [tool.mypy])",
      "chose   lint: ruff check . (pyproject.toml [tool.ruff])",
    ],
  },
];

let repo: FixtureRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

/** Runs `command` as a check does, in `dir`, with the Python tools on PATH. */
function run(command: string, dir: string) {
  const path = [TOOLS.pythonBin, process.env.PATH].filter(Boolean).join(delimiter);
  const result = spawnSync("sh", ["-c", command], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, PATH: path, NO_COLOR: "1" },
    timeout: 120_000,
  });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The lint and type-check commands of the scaffolded agent, by validator. */
async function chosenChecks(dir: string): Promise<Record<string, string>> {
  const registry = JSON.parse(await readFile(join(dir, ".agent/demo/steps_registry.json"), "utf8"));
  return Object.fromEntries(
    Object.entries(registry.validators as Record<string, { command: string }>)
      .filter(([name]) => name === "lint" || name === "type-check")
      .map(([name, validator]) => [name, validator.command]),
  );
}

function unavailable(project: LintProject): string | undefined {
  if (project.tools === "node" && TOOLS.nodeModules === null) return TOOLS.nodeProblem ?? "";
  if (project.tools === "python" && TOOLS.pythonBin === null) return TOOLS.pythonProblem ?? "";
  return undefined;
}

describe("the project's own lint, run right after closer init", () => {
  for (const project of PROJECTS) {
    const missing = unavailable(project);
    const name =
      missing === undefined
        ? `${project.kind}: passes before init and still passes after it`
        : `${project.kind}: not run here, its tools could not be installed (${missing})`;
    it.runIf(missing === undefined)(name, { timeout: 180_000 }, async () => {
      repo = await makeFixtureRepo({ files: { ".gitignore": GITIGNORE, ...project.files } });
      const modules = project.tools === "biome" ? NODE_MODULES : TOOLS.nodeModules;
      if (project.tools !== "python" && modules !== null) {
        await symlink(modules, join(repo.dir, "node_modules"), "dir");
      }
      const before = Object.values(project.checks).map((command) => run(command, repo?.dir ?? ""));
      for (const result of before) expect(result.code, result.output).toBe(0);

      const init = await cli("init", "demo", "--cwd", repo.dir);
      expect(init.code, init.stderr).toBe(0);
      for (const line of project.says) expect(init.stdout).toContain(line);
      expect(await chosenChecks(repo.dir)).toEqual(project.checks);
      for (const command of Object.values(project.checks)) {
        const after = run(command, repo.dir);
        expect(after.code, `${command}:\n${after.output}`).toBe(0);
      }
      if (project.tools === "python") {
        const format = run("ruff format --check .", repo.dir);
        expect(format.code, format.output).toBe(0);
      }
      const status = await repo.git("status", "--porcelain", "--untracked-files=all");
      const changed = status.stdout
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => line.slice(3))
        .filter((path) => !path.startsWith(".agent/demo/"));
      expect(changed).toEqual(project.touches ?? []);
    });
  }
});
