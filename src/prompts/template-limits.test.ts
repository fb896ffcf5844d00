import { describe, expect, it } from "vitest";
import { isCloserError } from "../errors.js";
import { listTemplateNeeds } from "./list-template-needs.js";
import { parseTemplate } from "./render-template.js";
import { MAX_TEMPLATE_BYTES, MAX_TEMPLATE_DEPTH, MAX_TEMPLATE_TAGS } from "./template-limits.js";

function nested(depth: number): string {
  return `intro\n${"{{#if a}}".repeat(depth)}x${"{{/if}}".repeat(depth)}\n`;
}

function errorOf(source: string): unknown {
  try {
    listTemplateNeeds(source, "prompts/steps/initial/issue/f_default.md");
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("template limits (docs/definition.md#template-limits)", () => {
  it("accepts blocks nested up to the limit, with else and inverse blocks", () => {
    expect(errorOf(nested(MAX_TEMPLATE_DEPTH))).toBeUndefined();
    expect(
      errorOf("{{#if a}}x{{^}}y{{/if}}{{^b}}z{{/b}}{{#each c}}{{this}}{{else}}-{{/each}}"),
    ).toBeUndefined();
  });

  it("refuses blocks nested deeper, naming the file, the line and the limit, before Handlebars parses", () => {
    const error = errorOf(nested(10_000));
    expect(isCloserError(error)).toBe(true);
    if (!isCloserError(error)) return;
    expect(error.message).toBe(
      `template nests blocks more than ${MAX_TEMPLATE_DEPTH} deep (line 2)`,
    );
    expect(error.fields).toMatchObject({
      file: "prompts/steps/initial/issue/f_default.md",
      line: 2,
    });
    expect(error.fields.fix).toMatch(/flatten/);
  });

  it("refuses a template over the size limit", () => {
    const error = errorOf("x".repeat(MAX_TEMPLATE_BYTES + 1));
    expect(isCloserError(error) && error.message).toBe(
      "template is 256.0 KiB; the limit is 256 KiB",
    );
  });

  it("refuses more tags than the limit", () => {
    const error = errorOf("{{a}}\n".repeat(MAX_TEMPLATE_TAGS + 1));
    expect(isCloserError(error) && error.fields.line).toBe(MAX_TEMPLATE_TAGS + 1);
  });
});

describe("a template saved on Windows (docs/definition.md#file-encoding)", () => {
  it("reads front matter after a byte order mark and with CRLF line ends", () => {
    const parsed = parseTemplate(
      "\uFEFF---\r\nparams: [errorOutput]\r\n---\r\nFix:\r\n{{errorOutput}}\r\n",
      "t.md",
    );
    expect(parsed).toEqual({
      body: "Fix:\n{{errorOutput}}\n",
      params: ["errorOutput"],
      bodyLineOffset: 3,
    });
  });
});
