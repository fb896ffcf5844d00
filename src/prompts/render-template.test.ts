import { describe, expect, it } from "vitest";
import { CloserError } from "../errors.js";
import { listTemplateVariables, parseTemplate, renderTemplate } from "./render-template.js";

const templatePath = "prompts/steps/retry/issue/f_failed_test-failed.md";

function renderError(source: string, variables: Record<string, unknown>): CloserError {
  try {
    renderTemplate({ source, templatePath, variables });
  } catch (error) {
    if (error instanceof CloserError) return error;
    throw error;
  }
  throw new Error("expected the render to fail");
}

describe("renderTemplate", () => {
  it("inserts values as plain text without HTML escaping", () => {
    const text = renderTemplate({
      source: "{{x}} {{y}}",
      templatePath,
      variables: { x: "<b>&", y: '"q"' },
    });
    expect(text).toBe('<b>& "q"');
  });

  it("iterates lists of extracted items", () => {
    const source = "{{#each failedTests}}{{name}}: {{error}}\n{{/each}}";
    const failedTests = [
      { name: "adds", error: "expected 3" },
      { name: "subtracts", error: "expected 1" },
    ];
    expect(renderTemplate({ source, templatePath, variables: { failedTests } })).toBe(
      "adds: expected 3\nsubtracts: expected 1\n",
    );
  });

  it("names the template and the variable when a variable is missing", () => {
    const error = renderError("Hello\nfix {{missingThing}} now", {});
    expect(error.fields.file).toBe(templatePath);
    expect(error.message).toContain('"missingThing"');
    expect(error.message).not.toContain("[object Object]");
    expect(error.fields.line).toBe(2);
  });

  it("names the whole path of a missing nested variable", () => {
    const error = renderError("{{task.owner}}", { task: { title: "t" } });
    expect(error.message).toContain('"task.owner"');
  });

  it("counts front matter lines in the reported line number", () => {
    const error = renderError("---\nparams: []\n---\nline one\n{{nope}}", {});
    expect(error.fields.line).toBe(5);
  });

  it("reports a declared param that was not supplied even if the body does not use it", () => {
    const error = renderError("---\nparams:\n  - failedTests\n---\nbody", {});
    expect(error.message).toContain('"failedTests"');
    expect(error.fields.file).toBe(templatePath);
  });

  it("reports bad Handlebars syntax as a parse error naming the template", () => {
    const error = renderError("{{#each x}}", { x: [] });
    expect(error.code).toBe("parse_error");
    expect(error.fields.file).toBe(templatePath);
  });

  it.each([
    ["Intro\n{{#each x}}\n- {{this}}", 2, "{{#each}} is never closed", "{{/each}}"],
    ["{{#if x}}\n{{#each x}}{{/each}}\n", 1, "{{#if}} is never closed", "{{/if}}"],
    ["{{/if}}", 1, "closes a block that was never opened", "{{#"],
    ["{{#if x}}{{/each}}", 1, "{{#if}} is closed with {{/each}}", "{{/if}}"],
    ["a\nb {{x}", 2, "a {{ is not closed with }}", "}}"],
    ["{{{x}}", 1, "a {{{ is closed with }} instead of }}}", "{{{name}}}"],
  ])(
    "says in words what is wrong with %j, on which line, and the fix",
    (source, line, problem, fix) => {
      const error = renderError(source, { x: [] });
      expect(error.message).toContain(problem);
      expect(error.fields.line).toBe(line);
      expect(error.fields.fix).toContain(fix);
    },
  );

  it("reports broken front matter YAML at its line in the file", () => {
    const error = renderError("---\nparams:\n  - a\n  b: [\n---\nbody", {});
    expect(error.code).toBe("parse_error");
    expect(error.message).toContain("front matter is not valid YAML");
    expect(error.message).not.toContain("\n");
    expect(error.fields.line).toBeGreaterThanOrEqual(3);
    expect(error.fields.line).toBeLessThanOrEqual(5);
  });

  it("renders the body after the front matter", () => {
    const source = "---\nparams:\n  - errorOutput\n---\nOutput: {{errorOutput}}";
    expect(renderTemplate({ source, templatePath, variables: { errorOutput: "boom" } })).toBe(
      "Output: boom",
    );
  });
});

describe("parseTemplate", () => {
  it("reads the declared params", () => {
    const parsed = parseTemplate(
      "---\nparams:\n  - failedTests\n  - errorOutput\n---\nbody\n",
      templatePath,
    );
    expect(parsed.params).toEqual(["failedTests", "errorOutput"]);
    expect(parsed.body).toBe("body\n");
    expect(parsed.bodyLineOffset).toBe(5);
  });

  it("leaves a file without front matter whole", () => {
    expect(parseTemplate("just text\n---\n", templatePath)).toEqual({
      body: "just text\n---\n",
      params: [],
      bodyLineOffset: 0,
    });
  });

  it("refuses unterminated front matter and params that are not a list of names", () => {
    expect(() => parseTemplate("---\nparams: [a]\nbody", templatePath)).toThrow(/never ends/);
    expect(() => parseTemplate("---\nparams: 3\n---\n", templatePath)).toThrow(
      /list of variable names/,
    );
    expect(() => parseTemplate("---\nparams: [a\n---\n", templatePath)).toThrow(/not valid YAML/);
  });
});

describe("listTemplateVariables", () => {
  const names = (body: string) =>
    listTemplateVariables(body).variables.map((variable) => variable.path);

  it("lists root variables and dotted paths", () => {
    expect(names("{{issue}} {{task.title}} {{{previousSummary}}}")).toEqual([
      "issue",
      "task.title",
      "previousSummary",
    ]);
  });

  it("leaves out item paths, this and @index inside #each", () => {
    expect(
      names("{{#each failedTests}}{{@index}} {{this}} {{name}} {{this.error}}{{/each}}"),
    ).toEqual(["failedTests"]);
  });

  it("follows ../ and @root back to the root", () => {
    expect(names("{{#each items}}{{../checkId}} {{@root.runId}}{{/each}}")).toEqual([
      "items",
      "checkId",
      "runId",
    ]);
  });

  it("keeps the context inside #if and #unless", () => {
    expect(names("{{#if previousSummary}}{{previousSummary}}{{else}}{{iteration}}{{/if}}")).toEqual(
      ["previousSummary", "previousSummary", "iteration"],
    );
  });

  it("ignores block params and helper names", () => {
    const usage = listTemplateVariables(
      "{{#each changedFiles as |file index|}}{{file}} {{index}}{{/each}}{{lookup task 'title'}}{{shout x}}",
    );
    expect(usage.variables.map((variable) => variable.name)).toEqual(["changedFiles", "task", "x"]);
    expect(usage.unknownHelpers).toEqual(["shout"]);
  });

  it("treats the inverse of #each as the outer context", () => {
    expect(names("{{#each failedTests}}{{name}}{{else}}{{errorOutput}}{{/each}}")).toEqual([
      "failedTests",
      "errorOutput",
    ]);
  });

  it("reports the line of each variable", () => {
    expect(listTemplateVariables("a\n\n{{x}}").variables[0]?.line).toBe(3);
  });
});
