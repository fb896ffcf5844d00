import { createRequire } from "node:module";
import Handlebars from "handlebars";
import { normalizeDefinitionText } from "../definition/definition-text.js";
import { CloserError } from "../errors.js";
import { readSimpleParams } from "./front-matter-params.js";
import type { ParsedTemplate } from "./parsed-template.js";
import { assertTemplateLimits } from "./template-limits.js";
import { translateHandlebarsError } from "./translate-handlebars-error.js";

export type { TemplateUsage, TemplateVariable } from "./template-variables.js";
export { listTemplateVariables } from "./template-variables.js";

export interface RenderTemplateOptions {
  /** The file text, front matter included. */
  readonly source: string;
  /** Shown in every error, e.g. `prompts/steps/retry/issue/f_failed.md`. */
  readonly templatePath: string;
  readonly variables: Readonly<Record<string, unknown>>;
}

/** A template parsed once and rendered strictly any number of times (see `renderTemplate`). */
export interface CompiledTemplate {
  readonly templatePath: string;
  readonly parsed: ParsedTemplate;
  render(variables: Readonly<Record<string, unknown>>): string;
}

const FRONT_MATTER_FENCE = /^---[ \t]*$/;

/** The YAML parser, loaded only for a template that has front matter (few do). */
function parseYaml(text: string): unknown {
  const yaml: typeof import("yaml") = createRequire(import.meta.url)("yaml");
  return yaml.parse(text);
}

/**
 * Splits off YAML front matter (`---\nparams:\n  - failedTests\n---\n`) and
 * reads its `params`, from the text without a byte order mark and with LF
 * line ends (docs/definition.md#file-encoding), within the template limits
 * (docs/definition.md#template-limits).
 */
export function parseTemplate(text: string, templatePath: string): ParsedTemplate {
  const source = normalizeDefinitionText(text);
  assertTemplateLimits(source, templatePath);
  const lines = source.split("\n");
  if (!FRONT_MATTER_FENCE.test(lines[0] ?? "")) {
    return { body: source, params: [], bodyLineOffset: 0 };
  }
  const closing = lines.findIndex((line, index) => index > 0 && FRONT_MATTER_FENCE.test(line));
  if (closing === -1) {
    throw new CloserError("parse_error", "front matter starts with --- but never ends", {
      file: templatePath,
      line: 1,
      fix: "close the front matter with a line holding only ---",
    });
  }
  const params = readParams(lines.slice(1, closing).join("\n"), templatePath);
  return {
    body: lines.slice(closing + 1).join("\n"),
    params,
    bodyLineOffset: closing + 1,
  };
}

function readParams(yamlText: string, templatePath: string): string[] {
  const simple = readSimpleParams(yamlText);
  if (simple !== undefined) return simple;
  let data: unknown;
  try {
    data = parseYaml(yamlText);
  } catch (error) {
    const firstLine = ((error as Error).message.split("\n")[0] ?? "").replace(/ at line .*$/, "");
    const position = (error as { linePos?: readonly { line: number; col: number }[] }).linePos?.[0];
    throw new CloserError("parse_error", `front matter is not valid YAML: ${firstLine}`, {
      file: templatePath,
      // The front matter starts on the file's second line, after the opening ---.
      ...(position === undefined ? {} : { line: position.line + 1, column: position.col }),
      fix: "write the front matter as YAML, e.g. params: [failedTests, errorOutput]",
      detail: (error as Error).message,
      cause: error,
    });
  }
  if (data === null || data === undefined) return [];
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new CloserError("parse_error", "front matter must be a YAML mapping", {
      file: templatePath,
      found: Array.isArray(data) ? "a list" : typeof data,
      fix: "write the front matter as key: value lines, e.g. params: [failedTests]",
    });
  }
  const params = (data as Record<string, unknown>).params;
  if (params === undefined || params === null) return [];
  if (!Array.isArray(params) || params.some((param) => typeof param !== "string")) {
    throw new CloserError("parse_error", "front matter params must be a list of variable names", {
      file: templatePath,
      jsonPath: "params",
      found: JSON.stringify(params),
      fix: "write params as a YAML list of names, e.g. params: [failedTests, errorOutput]",
    });
  }
  return params as string[];
}

/**
 * Renders a template strictly: values go in as plain text (no HTML escaping), a declared param
 * that was not supplied or a variable nobody supplied is a CloserError naming the template and
 * the variable — never literal `{{x}}` text in a prompt.
 */
export function renderTemplate(options: RenderTemplateOptions): string {
  return compileTemplate(options.source, options.templatePath).render(options.variables);
}

/**
 * Parses a template (front matter included) for rendering many times; the
 * Handlebars body is compiled on the first render. Rendering is as strict as
 * `renderTemplate`.
 */
export function compileTemplate(source: string, templatePath: string): CompiledTemplate {
  const parsed = parseTemplate(source, templatePath);
  let template: ReturnType<typeof Handlebars.compile> | undefined;
  return {
    templatePath,
    parsed,
    render: (variables) => {
      assertDeclaredParams(parsed, templatePath, variables);
      try {
        template ??= Handlebars.compile(parsed.body, { strict: true, noEscape: true });
        return template(variables);
      } catch (error) {
        throw translateHandlebarsError(error, parsed, templatePath);
      }
    },
  };
}

function assertDeclaredParams(
  parsed: ParsedTemplate,
  templatePath: string,
  variables: Readonly<Record<string, unknown>>,
): void {
  const missing = parsed.params.filter((param) => !(param in variables));
  if (missing.length === 0) return;
  throw new CloserError(
    "config_error",
    `template declares param(s) ${missing.map((name) => `"${name}"`).join(", ")} in its front matter but they were not supplied`,
    {
      file: templatePath,
      jsonPath: "params",
      expected: `variables ${missing.join(", ")}`,
      found: `supplied: ${Object.keys(variables).sort().join(", ")}`,
      fix: "map the param to an extractor in the validator's extractParams, or remove it from params",
    },
  );
}
