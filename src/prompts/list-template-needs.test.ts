import { describe, expect, it } from "vitest";
import { CloserError } from "../errors.js";
import { listTemplateNeeds } from "./list-template-needs.js";

describe("listTemplateNeeds", () => {
  it("lists the front matter's params and the body's variables with their file lines", () => {
    const source = "---\nparams: [failedTests]\n---\nFix {{failedTests}}\n\nfor {{task.title}}.";
    const needs = listTemplateNeeds(source, "prompts/f_failed.md");
    expect(needs.params).toEqual(["failedTests"]);
    expect(needs.hasFrontMatter).toBe(true);
    expect(needs.variables).toEqual([
      { name: "failedTests", path: "failedTests", line: 4 },
      { name: "task", path: "task.title", line: 6 },
    ]);
  });

  it("reads a template without front matter line by line from the top", () => {
    const needs = listTemplateNeeds("a\n{{x}} {{> footer}} {{shout x}}", "f_default.md");
    expect(needs).toMatchObject({ params: [], hasFrontMatter: false });
    expect(needs.variables.map((variable) => variable.line)).toEqual([2, 2]);
    expect(needs.partials).toEqual(["footer"]);
    expect(needs.unknownHelpers).toEqual(["shout"]);
  });

  it("throws the render's CloserError for bad Handlebars, at the file line", () => {
    const needs = () => listTemplateNeeds("---\nparams: []\n---\n{{#each items}}\n", "f.md");
    expect(needs).toThrow(CloserError);
    expect(needs).toThrow(/never closed/);
    try {
      needs();
    } catch (error) {
      expect((error as CloserError).fields).toMatchObject({ file: "f.md", line: 4 });
    }
  });

  it("throws for front matter that is not YAML", () => {
    expect(() => listTemplateNeeds("---\nparams: [\n---\nx", "f.md")).toThrow(/not valid YAML/);
  });
});
