/**
 * Fixture projects of every kind `closer init` reads, and the checks it must choose in each
 * (by validator name, the command besides git-clean).
 */
export interface InitProject {
  readonly kind: string;
  readonly files: Readonly<Record<string, string>>;
  readonly checks: Readonly<Record<string, string>>;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
/** What the runners leave in the tree, so that git-clean holds after a real run. */
const GITIGNORE = "node_modules\n.pytest_cache/\n__pycache__/\ntarget/\n";

const PROJECTS: readonly InitProject[] = [
  {
    kind: "npm with scripts named otherwise",
    files: {
      "package.json": json({
        scripts: { test: "node --test", check: "tsc --noEmit", "lint:code": "biome check ." },
        devDependencies: { typescript: "5.9" },
      }),
      "package-lock.json": "{}\n",
      "tsconfig.json": "{}\n",
    },
    checks: { "tests-pass": "npm test", "type-check": "npm run check" },
  },
  {
    kind: "pnpm",
    files: {
      "package.json": json({
        packageManager: "pnpm@9.12.0",
        scripts: { test: "vitest run", typecheck: "tsc --noEmit", lint: "eslint ." },
      }),
    },
    checks: {
      "tests-pass": "pnpm test",
      "type-check": "pnpm run typecheck",
      lint: "pnpm run lint",
    },
  },
  {
    kind: "yarn",
    files: {
      "package.json": json({ scripts: { test: "jest" }, devDependencies: { typescript: "5" } }),
      "yarn.lock": "# yarn lockfile v1\n",
      "tsconfig.json": "{}\n",
    },
    checks: { "tests-pass": "yarn test", "type-check": "yarn tsc --noEmit" },
  },
  {
    kind: "bun",
    files: {
      "package.json": json({ scripts: { test: "bun test", lint: "biome lint ." } }),
      "bun.lock": "{}\n",
    },
    checks: { "tests-pass": "bun run test", lint: "bun run lint" },
  },
  {
    kind: "pytest/pyproject",
    files: {
      "pyproject.toml": '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
    },
    checks: { "tests-pass": "pytest" },
  },
  {
    kind: "uv",
    files: {
      "pyproject.toml": '[project]\nname = "calc"\n\n[dependency-groups]\ndev = ["pytest>=8"]\n',
      "uv.lock": "version = 1\n",
    },
    checks: { "tests-pass": "uv run pytest" },
  },
  {
    kind: "tox",
    files: { "tox.ini": "[tox]\nenvlist = py312\n\n[testenv]\ndeps = pytest\ncommands = pytest\n" },
    checks: { "tests-pass": "tox" },
  },
  {
    kind: "go",
    files: { "go.mod": "module example.com/calc\n\ngo 1.21\n" },
    checks: { "tests-pass": "go test -v ./...", lint: "go vet ./..." },
  },
  {
    kind: "cargo",
    files: { "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n' },
    checks: { "tests-pass": "cargo test" },
  },
  {
    kind: "deno",
    files: { "deno.json": json({ tasks: {} }) },
    checks: { "tests-pass": "deno test", "type-check": "deno check", lint: "deno lint" },
  },
  {
    kind: "Makefile",
    files: { Makefile: ".PHONY: test\ntest:\n\t./run-tests.sh\n" },
    checks: { "tests-pass": "make test" },
  },
  { kind: "empty", files: {}, checks: {} },
];

export const INIT_PROJECTS: readonly InitProject[] = PROJECTS.map((project) => ({
  ...project,
  files: { ".gitignore": GITIGNORE, ...project.files },
}));
