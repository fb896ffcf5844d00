import { parseTemplate } from "./render-template.js";
import { listTemplateVariables, type TemplateUsage } from "./template-variables.js";
import { translateHandlebarsError } from "./translate-handlebars-error.js";

/** What a template file needs from the variables object it is rendered from. */
export interface TemplateNeeds extends TemplateUsage {
  /** Variables the front matter declares (`params:`). */
  readonly params: readonly string[];
  /** Whether the file starts with front matter (its `params:` then sits from line 2). */
  readonly hasFrontMatter: boolean;
}

/**
 * Lists what a template file needs without rendering it: the params its front matter declares
 * and the root variables, helpers and partials its body uses, each variable with its line in the
 * file. Throws the CloserError a render would for bad front matter or bad Handlebars syntax.
 */
export function listTemplateNeeds(source: string, templatePath: string): TemplateNeeds {
  const parsed = parseTemplate(source, templatePath);
  let usage: TemplateUsage;
  try {
    usage = listTemplateVariables(parsed.body);
  } catch (error) {
    throw translateHandlebarsError(error, parsed, templatePath);
  }
  return {
    params: parsed.params,
    hasFrontMatter: parsed.bodyLineOffset > 0,
    variables: usage.variables.map((variable) => ({
      ...variable,
      line: variable.line + parsed.bodyLineOffset,
    })),
    unknownHelpers: usage.unknownHelpers,
    partials: usage.partials,
  };
}
