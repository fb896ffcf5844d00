import { describe, expect, it } from "vitest";
import { reviewEvidenceVariables } from "../../completion/review-evidence.js";
import { SchemaResolver } from "../../definition/schema-resolver.js";
import type { TaskInfo } from "../../ports/run-state.js";
import { renderTemplate } from "../../prompts/render-template.js";
import { makeVariables } from "../../prompts/variables.js";
import { makeScaffoldFiles } from "./scaffold-files.js";
import type { ScaffoldPlan } from "./scaffold-plan.js";

/** A plan with a check of every role, each with its findings parser. */
const EVERY_ROLE: ScaffoldPlan = {
  checks: [
    { role: "test", command: "npm test", source: "package.json", parser: "parseTestOutput" },
    {
      role: "typecheck",
      command: "npx tsc --noEmit",
      source: "tsconfig",
      parser: "parseTypeErrors",
    },
    { role: "lint", command: "npm run lint", source: "package.json", parser: "parseLintErrors" },
  ],
  backend: "claude-sdk",
  schemas: {},
};

const files = new Map(makeScaffoldFiles("demo", EVERY_ROLE).map((file) => [file.path, file.text]));
const task: TaskInfo = {
  kind: "issue",
  title: "Add <b>bold</b> & more",
  body: "The body.",
  url: "https://github.com/o/r/issues/7",
  issueNumber: 7,
};
const base = {
  parameters: { issue: 7 },
  iteration: 2,
  maxIterations: 20,
  runId: "run-1",
  checkId: "check-1",
  task,
  previousSummary: {
    iteration: 1,
    status: "completed",
    nextAction: "complete",
    toolsUsed: [],
    errors: [],
    failedCheck: { validator: "tests-pass", pattern: "test-failed", detail: "1 test failed" },
  },
};

/** Params each retry template gets, in the shapes the extractors and the harness produce. */
const RETRY_PARAMS: Record<string, Record<string, unknown>> = {
  "git-dirty": { changedFiles: ["src/a.ts"], untrackedFiles: ["notes.txt"] },
  "test-failed": {
    failedTests: [
      { name: "math > adds", error: "expected 3, got 4" },
      { name: "empty", error: "" },
    ],
    errorOutput: "FAIL math",
  },
  "type-error": { typeErrors: [{ file: "src/a.ts", line: 3, message: "TS2322" }], errorOutput: "" },
  "lint-error": {
    lintErrors: [{ file: "src/a.ts", line: 1, rule: "no-var", message: "Unexpected var" }],
    errorOutput: "",
  },
  "format-error": { formatError: "next_action is missing", expectedFormat: "JSON" },
  unformatted: { errorOutput: "src/a.ts" },
};

function render(path: string, variables: Record<string, unknown>): string {
  const source = files.get(path);
  if (source === undefined) throw new Error(`no scaffold file ${path}`);
  return renderTemplate({ source, templatePath: path, variables });
}

describe("the scaffolded issue agent", () => {
  it.each([
    "prompts/steps/initial/issue/f_default.md",
    "prompts/steps/continuation/issue/f_default.md",
  ])("renders %s from the runner's variables alone", (path) => {
    const text = render(path, makeVariables(base));
    expect(text).toContain("Add <b>bold</b> & more");
    expect(text).not.toMatch(/\{\{|\[object Object\]/);
  });

  it("renders the closure review from the runner's and the review's variables", () => {
    const text = render("prompts/steps/complete/issue/f_default.md", {
      ...makeVariables(base),
      ...reviewEvidenceVariables({
        baselineCommit: "abc123",
        changes: {
          stat: " test/a.test.js | 2 +-",
          files: [{ path: "test/a.test.js", diff: "-x\n+y" }],
        },
        checkFiles: [],
        checks: [{ validator: "tests-pass", command: "npm test", valid: true }],
        declaration: { status: "completed", summary: "fixed it" },
      }),
    });
    expect(text).toContain("Add <b>bold</b> & more");
    expect(text).toContain("commit abc123");
    expect(text).toContain("-x\n+y");
    expect(text).toContain("tests-pass ran `npm test`: passed");
    expect(text).not.toMatch(/\{\{|\[object Object\]/);
  });

  it("carries the previous declaration and what closer found into the continuation prompt", () => {
    const text = render("prompts/steps/continuation/issue/f_default.md", makeVariables(base));
    expect(text).toContain("status: completed");
    expect(text).toContain('"tests-pass" failed');
  });

  it.each([
    ["git-dirty", ["src/a.ts", "notes.txt"]],
    ["test-failed", ["math > adds: expected 3, got 4", "FAIL math"]],
    ["type-error", ["src/a.ts:3 TS2322"]],
    ["lint-error", ["src/a.ts:1 no-var: Unexpected var"]],
    ["format-error", ["next_action is missing", "JSON"]],
    ["unformatted", ["unformatted", "errorOutput:\n  src/a.ts"]],
  ])("renders the %s retry with what its check extracted", (pattern, expected) => {
    const specific = `prompts/steps/retry/issue/f_failed_${pattern}.md`;
    const path = files.has(specific) ? specific : "prompts/steps/retry/issue/f_failed.md";
    const params = RETRY_PARAMS[pattern] ?? {};
    const text = render(path, makeVariables({ ...base, retry: { pattern, attempt: 2, params } }));
    expect(text).not.toMatch(/\{\{|\[object Object\]/);
    for (const value of expected) expect(text).toContain(value);
  });

  it("shows the output alone for a check closer has no parser for, and names its command", () => {
    const plan: ScaffoldPlan = {
      ...EVERY_ROLE,
      checks: [{ role: "lint", command: "go vet ./...", source: "go.mod" }],
    };
    const vetFiles = new Map(makeScaffoldFiles("demo", plan).map((file) => [file.path, file.text]));
    const source = vetFiles.get("prompts/steps/retry/issue/f_failed_lint-error.md") ?? "";
    const text = renderTemplate({
      source,
      templatePath: "f_failed_lint-error.md",
      variables: makeVariables({
        ...base,
        retry: { pattern: "lint-error", attempt: 1, params: { errorOutput: "vet: x.go:3: bad" } },
      }),
    });
    expect(text).toContain("`go vet ./...` fails");
    expect(text).toContain("vet: x.go:3: bad");
    expect(text).not.toContain("## Problems");
    expect(vetFiles.has("prompts/steps/retry/issue/f_failed_test-failed.md")).toBe(false);
    const system = vetFiles.get("prompts/system.md") ?? "";
    expect(system).toContain("a clean git working tree, then `go vet ./...`");
  });

  it("lists each failed test with its error", () => {
    const params = RETRY_PARAMS["test-failed"] ?? {};
    const text = render(
      "prompts/steps/retry/issue/f_failed_test-failed.md",
      makeVariables({ ...base, retry: { pattern: "test-failed", attempt: 1, params } }),
    );
    expect(text).toContain("- math > adds: expected 3, got 4\n- empty\n");
  });

  it("narrows next_action of the first step through allOf and keeps status and summary", async () => {
    const resolver = new SchemaResolver("/schemas", {
      readFile: async () => files.get("schemas/issue.schema.json") ?? "",
    });
    const initial = await resolver.resolve({ file: "issue.schema.json", schema: "initial.issue" });
    const properties = initial.properties as Record<string, Record<string, unknown>>;
    expect(properties.status?.enum).toEqual(
      expect.arrayContaining(["completed", "in_progress", "blocked"]),
    );
    expect(properties.summary?.type).toBe("string");
    const nextAction = properties.next_action?.properties as Record<string, { enum: string[] }>;
    expect(nextAction.action?.enum).toEqual(["continue", "complete"]);
    const later = await resolver.resolve({
      file: "issue.schema.json",
      schema: "continuation.issue",
    });
    const laterAction = (later.properties as Record<string, Record<string, unknown>>).next_action
      ?.properties as Record<string, { enum: string[] }>;
    expect(laterAction.action?.enum).toEqual(expect.arrayContaining(["continue", "complete"]));
  });
});
