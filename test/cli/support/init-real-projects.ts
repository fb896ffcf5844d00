/**
 * Small real projects whose checks `closer init` chooses and which then run for real: each
 * passes as written, and `break` edits it so that its tests fail (and, for npm, its types).
 */
export interface RealProject {
  readonly kind: string;
  /** The program the checks need; a project whose tool is not on PATH is not run. */
  readonly tool: string;
  readonly files: Readonly<Record<string, string>>;
  /** Files that make the tests fail. */
  readonly broken: Readonly<Record<string, string>>;
  /** A failed test the test check must name once the project is broken. */
  readonly failedTest: string;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const GITIGNORE = ".closer/\nnode_modules\n.pytest_cache/\n__pycache__/\ntarget/\n";

const ADD_TEST_MJS = `import { test } from "node:test";
import assert from "node:assert/strict";
import { add } from "../src/add.mjs";

test("adds two numbers", () => {
  assert.equal(add(2, 3), 5);
});
`;

export const REAL_PROJECTS: readonly RealProject[] = [
  {
    kind: "npm",
    tool: "npm",
    files: {
      ".gitignore": GITIGNORE,
      "package.json": json({
        name: "calc",
        private: true,
        scripts: { test: "node --test", typecheck: "tsc -p tsconfig.json" },
        devDependencies: { typescript: "5.9" },
      }),
      "package-lock.json": json({ name: "calc", lockfileVersion: 3, packages: {} }),
      "tsconfig.json": json({
        compilerOptions: { strict: true, noEmit: true, target: "es2022", types: [] },
        include: ["src/**/*.ts"],
      }),
      "src/add.mjs": "export const add = (a, b) => a + b;\n",
      "src/label.ts": 'export const label: string = "sum";\n',
      "test/add.test.mjs": ADD_TEST_MJS,
    },
    broken: {
      "src/add.mjs": "export const add = (a, b) => a - b;\n",
      "src/label.ts": 'export const label: number = "sum";\n',
    },
    failedTest: "adds two numbers",
  },
  {
    kind: "Makefile",
    tool: "make",
    files: {
      ".gitignore": GITIGNORE,
      Makefile: ".PHONY: test\ntest:\n\t@sh run-tests.sh\n",
      "run-tests.sh":
        'echo "TAP version 13"\necho "1..1"\nif grep -q good status.txt; then echo "ok 1 - status is good"; else echo "not ok 1 - status is good"; exit 1; fi\n',
      "status.txt": "good\n",
    },
    broken: { "status.txt": "bad\n" },
    failedTest: "status is good",
  },
  {
    kind: "pytest",
    tool: "pytest",
    files: {
      ".gitignore": GITIGNORE,
      "pyproject.toml":
        '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\naddopts = "-p no:cacheprovider"\n',
      "calc.py": "def add(a, b):\n    return a + b\n",
      "test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    },
    // Not the passing file's size: Python reuses a .pyc written in the same second at the same size.
    broken: { "calc.py": "def add(a, b):\n    return a - b  # broken\n" },
    failedTest: "test_add",
  },
  {
    kind: "cargo",
    tool: "cargo",
    files: {
      ".gitignore": GITIGNORE,
      "Cargo.toml":
        '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
      "src/lib.rs":
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 3), 5);\n    }\n}\n",
    },
    broken: {
      "src/lib.rs":
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 3), 5);\n    }\n}\n",
    },
    failedTest: "adds",
  },
  {
    kind: "go",
    tool: "go",
    files: {
      ".gitignore": GITIGNORE,
      "go.mod": "module example.com/calc\n\ngo 1.21\n",
      "calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
      "calc_test.go":
        'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("Add(2, 3) is not 5")\n\t}\n}\n',
    },
    broken: { "calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n" },
    failedTest: "TestAdd",
  },
  {
    kind: "deno",
    tool: "deno",
    files: {
      ".gitignore": GITIGNORE,
      "deno.json": json({}),
      "calc.ts": "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
      "calc_test.ts":
        'import { add } from "./calc.js";\n\nDeno.test("adds two numbers", () => {\n  if (add(2, 3) !== 5) throw new Error("add(2, 3) is not 5");\n});\n',
    },
    broken: {
      "calc.ts": "export function add(a: number, b: number): number {\n  return a - b;\n}\n",
    },
    failedTest: "adds two numbers",
  },
];
