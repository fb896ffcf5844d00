/**
 * Projects made like real ones of several ecosystems, each with a real bug: what a new user
 * brings to closer. Each keeps its ecosystem's usual layout and configuration, its runner's
 * default output (nothing chosen to please closer), and no installed dependencies.
 */
export interface FieldProject {
  readonly name: string;
  /** The program its checks need; a project whose tool is not on PATH is skipped. */
  readonly tool: string;
  readonly files: Readonly<Record<string, string>>;
  /** The task a user would write. */
  readonly task: string;
  /** The file the fix rewrites, and its fixed content. */
  readonly fix: { readonly path: string; readonly content: string };
  /** How many tests the project's runner runs. */
  readonly testCount: number;
  /** The project's own test command, run on the delivered commit. */
  readonly testCommand: string;
  /** What `closer init` must choose for the tests. */
  readonly chosenTest: string;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

const SLUGIFY = (joiner: string) =>
  `export function slugify(text) {\n  return text\n    .trim()\n    .toLowerCase()\n    .replace(/[^a-z0-9]+/g, "${joiner}");\n}\n`;

/** npm with vitest as a devDependency, no lockfile: init's setup installs it. */
const VITEST: FieldProject = {
  name: "npm + vitest, no lockfile",
  tool: "npm",
  files: {
    ".gitignore": "node_modules/\ncoverage/\n",
    "package.json": json({
      name: "slugify-lite",
      version: "1.2.0",
      type: "module",
      main: "src/slugify.js",
      scripts: { test: "vitest run" },
      devDependencies: { vitest: "^4.1.12" },
    }),
    "src/slugify.js": SLUGIFY("_"),
    "test/slugify.test.js": [
      'import { describe, expect, it } from "vitest";',
      'import { slugify } from "../src/slugify.js";',
      "",
      'describe("slugify", () => {',
      '  it("joins words with dashes", () => expect(slugify("Hello World")).toBe("hello-world"));',
      '  it("trims the ends", () => expect(slugify("  a b ")).toBe("a-b"));',
      '  it("keeps digits", () => expect(slugify("v2 release")).toBe("v2-release"));',
      '  it("lowercases", () => expect(slugify("ABC")).toBe("abc"));',
      "});",
      "",
    ].join("\n"),
  },
  task: "slugify must join words with dashes, not underscores",
  fix: { path: "src/slugify.js", content: SLUGIFY("-") },
  testCount: 4,
  testCommand: "npm test",
  chosenTest: "tests-pass: npm test",
};

const WORDCOUNT = (split: string) => `def count_words(text):\n    return len(${split})\n`;

/** A pyproject.toml project with its tests under tests/ and pytest's configuration in it. */
const PYTEST: FieldProject = {
  name: "pyproject + pytest",
  tool: "pytest",
  files: {
    ".gitignore": "__pycache__/\n.pytest_cache/\n*.egg-info/\n",
    "pyproject.toml": [
      "[project]",
      'name = "wordcount"',
      'version = "0.1.0"',
      'requires-python = ">=3.9"',
      "",
      "[tool.pytest.ini_options]",
      'testpaths = ["tests"]',
      'pythonpath = ["src"]',
      "",
    ].join("\n"),
    "src/wordcount/__init__.py": WORDCOUNT('text.split(" ")'),
    "tests/test_count.py": [
      "from wordcount import count_words",
      "",
      "",
      "def test_simple():",
      '    assert count_words("a b c") == 3',
      "",
      "",
      "def test_extra_spaces():",
      '    assert count_words("  a   b ") == 2',
      "",
      "",
      "def test_empty():",
      '    assert count_words("") == 0',
      "",
      "",
      "def test_newlines():",
      '    assert count_words("a\\nb") == 2',
      "",
    ].join("\n"),
  },
  task: "count_words must split on any whitespace",
  fix: { path: "src/wordcount/__init__.py", content: WORDCOUNT("text.split()") },
  testCount: 4,
  testCommand: "pytest",
  chosenTest: "tests-pass: pytest",
};

const CLAMP = (above: string) =>
  [
    "// Package clamp keeps numbers in a range.",
    "package clamp",
    "",
    "// Clamp returns value limited to [low, high].",
    "func Clamp(value, low, high int) int {",
    "\tif value < low {",
    "\t\treturn low",
    "\t}",
    "\tif value > high {",
    `\t\treturn ${above}`,
    "\t}",
    "\treturn value",
    "}",
    "",
  ].join("\n");

/** A Go module with no dependencies and table-less tests, as `go mod init` and `go test` make them. */
const GO: FieldProject = {
  name: "go module",
  tool: "go",
  files: {
    "go.mod": "module example.com/clamp\n\ngo 1.19\n",
    "clamp.go": CLAMP("low"),
    "clamp_test.go": [
      "package clamp",
      "",
      'import "testing"',
      "",
      "func TestBelow(t *testing.T) {",
      "\tif got := Clamp(-5, 0, 10); got != 0 {",
      '\t\tt.Fatalf("got %d", got)',
      "\t}",
      "}",
      "",
      "func TestAbove(t *testing.T) {",
      "\tif got := Clamp(50, 0, 10); got != 10 {",
      '\t\tt.Fatalf("got %d", got)',
      "\t}",
      "}",
      "",
      "func TestInside(t *testing.T) {",
      "\tif got := Clamp(5, 0, 10); got != 5 {",
      '\t\tt.Fatalf("got %d", got)',
      "\t}",
      "}",
      "",
    ].join("\n"),
  },
  task: "Clamp must return high above the range",
  fix: { path: "clamp.go", content: CLAMP("high") },
  testCount: 3,
  testCommand: "go test ./...",
  chosenTest: "tests-pass: go test -v ./...",
};

const CLAMP_RS = (above: string) =>
  [
    "pub fn clamp(value: i32, low: i32, high: i32) -> i32 {",
    "    if value < low {",
    "        low",
    "    } else if value > high {",
    `        ${above}`,
    "    } else {",
    "        value",
    "    }",
    "}",
    "",
    "#[cfg(test)]",
    "mod tests {",
    "    use super::*;",
    "",
    "    #[test]",
    "    fn below() {",
    "        assert_eq!(clamp(-5, 0, 10), 0);",
    "    }",
    "",
    "    #[test]",
    "    fn above() {",
    "        assert_eq!(clamp(50, 0, 10), 10);",
    "    }",
    "",
    "    #[test]",
    "    fn inside() {",
    "        assert_eq!(clamp(5, 0, 10), 5);",
    "    }",
    "}",
    "",
  ].join("\n");

/** A library crate with no dependencies and its Cargo.lock, as `cargo new --lib` and a build leave it. */
const CARGO: FieldProject = {
  name: "cargo crate",
  tool: "cargo",
  files: {
    ".gitignore": "/target\n",
    "Cargo.toml":
      '[package]\nname = "clampy"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    "Cargo.lock":
      '# This file is automatically @generated by Cargo.\n# It is not intended for manual editing.\nversion = 3\n\n[[package]]\nname = "clampy"\nversion = "0.1.0"\n',
    "src/lib.rs": CLAMP_RS("low"),
  },
  task: "clamp must return high above the range",
  fix: { path: "src/lib.rs", content: CLAMP_RS("high") },
  testCount: 3,
  testCommand: "cargo test",
  chosenTest: "tests-pass: cargo test",
};

export const FIELD_PROJECTS: readonly FieldProject[] = [VITEST, PYTEST, GO, CARGO];
